import ProjectDescription

let workspace = Workspace(
    name: "Just Speak to It",
    projects: [.relativeToRoot(".")]
)
