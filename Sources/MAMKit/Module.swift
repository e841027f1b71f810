// MAMKit
