import ProjectDescription

let workspace = Workspace(
    name: "DMS",
    projects: [
        "iOS"
    ],
    fileHeaderTemplate: nil,
    additionalFiles: []
)
