import ProjectDescription

let dmsOrganizationName: String = "com.DMS"
