// MAMLoop
