import MAMModel
