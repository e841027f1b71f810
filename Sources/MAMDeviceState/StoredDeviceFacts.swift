import MAMPolicy
import MAMModel

/// `DeviceFacts` as stored in the `setting` table.
struct StoredDeviceFacts: Codable {
    var mdmEnrolled: Bool
    var jailbroken: Bool
    var osVersion: String
    var restrictions: [String: Bool]
    var model: String
    /// Absent in facts stored before it was one: the broker was then a fact of the run only.
    var brokerInstalled: Bool?
    /// Absent in facts stored before it was one: the asset server answered.
    var assetServerAvailable: Bool?

    init(_ f: DeviceFacts) {
        mdmEnrolled = f.mdmEnrolled
        jailbroken = f.jailbroken
        osVersion = f.osVersion.text
        restrictions = f.restrictions
        model = f.model
        brokerInstalled = f.brokerInstalled
        assetServerAvailable = f.assetServerAvailable
    }

    var facts: DeviceFacts {
        var f = DeviceFacts(mdmEnrolled: mdmEnrolled, jailbroken: jailbroken, osVersion: Version(osVersion) ?? DeviceFacts().osVersion,
                            restrictions: restrictions, model: model, brokerInstalled: brokerInstalled ?? false)
        f.assetServerAvailable = assetServerAvailable ?? true
        return f
    }
}
