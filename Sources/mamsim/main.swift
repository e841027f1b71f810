print("mamsim")
