internal import CMAMProto
internal import CProtobufC

extension HotFrames {
    /// Messages whose fields in the .proto (protobuf-c's descriptors) differ from the fields
    /// `HotFrames` reads and writes, with the numbers on each side: a field added to one of
    /// these messages fails a test until it is read and written here too (every frame written
    /// by hand would otherwise drop it).
    static func schemaMismatches() -> [String] {
        func check(_ name: String, _ d: ProtobufCMessageDescriptor, _ known: Set<UInt32>) -> String? {
            let numbers = Set((0..<Int(d.n_fields)).map { d.fields[$0].id })
            return numbers == known ? nil : "\(name): the .proto has fields \(numbers.sorted()), HotFrames knows \(known.sorted())"
        }
        // The frame's own fields besides its body (the body's members are the messages below).
        let frame = mamsim__v2__frame__descriptor
        let envelope = Set((0..<Int(frame.n_fields)).filter { frame.fields[$0].flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) == 0 }
            .map { frame.fields[$0].id })
        return [
            envelope == [1, 2] ? nil : "Frame: the .proto has fields \(envelope.sorted()) besides its body, HotFrames knows [1, 2]",
            check("Ownership", mamsim__v2__ownership__descriptor, [1, 2, 3, 4, 5]),
            check("Item", mamsim__v2__item__descriptor, [1, 2, 3, 4, 5, 6]),
            check("ShareRequest", mamsim__v2__share_request__descriptor, [1, 2, 3, 4]),
            check("Deliver", mamsim__v2__deliver__descriptor, [1, 2, 3]),
            check("DeliverAck", mamsim__v2__deliver_ack__descriptor, [1, 2]),
            check("ShareBatch", mamsim__v2__share_batch__descriptor, [1]),
            check("BatchedShare", mamsim__v2__batched_share__descriptor, [1, 2]),
            check("DeliverBatch", mamsim__v2__deliver_batch__descriptor, [1]),
            check("BatchedDelivery", mamsim__v2__batched_delivery__descriptor, [1, 2]),
            check("DeliverAcks", mamsim__v2__deliver_acks__descriptor, [1, 2, 3]),
            // Answers with exceptions (3) are left to protobuf-c, both ways.
            check("ShareResults", mamsim__v2__share_results__descriptor, [1, 2, 3]),
            check("ShareResult", mamsim__v2__share_result__descriptor, [1]),
            // A verdict with a reason (2) is left to protobuf-c, both ways.
            check("Verdict", mamsim__v2__verdict__descriptor, [1, 2, 3]),
            check("Ping", mamsim__v2__ping__descriptor, [1]),
        ].compactMap { $0 }
    }
}
