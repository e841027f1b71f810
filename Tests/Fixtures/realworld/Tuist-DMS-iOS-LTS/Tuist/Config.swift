import ProjectDescription

let config = Config()
