
import ProjectDescription

let ConfigPlugin = Plugin(name: "ConfigPlugin")
