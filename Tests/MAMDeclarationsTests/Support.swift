import Crypto

enum P256Key {
    static func fresh() -> [UInt8] { Array(P256.Signing.PrivateKey().derRepresentation) }
}
