import Foundation
import ProjectDescription
//
//public struct XCConfig {
//  public static let module: [Configuration] = [
//    .debug(name: .debug),
//    .release(name: .release)
//  ]
//}
