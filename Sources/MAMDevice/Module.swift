// MAMDevice
