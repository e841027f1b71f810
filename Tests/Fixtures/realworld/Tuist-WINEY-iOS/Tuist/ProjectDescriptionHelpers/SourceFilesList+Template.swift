//
//  SourceFilesList+Template.swift
//  ProjectDescriptionHelpers
//
//  Created by 박혜운 on 2023/11/15.
//

import ProjectDescription

public extension SourceFilesList {
  static let sources: SourceFilesList = "Sources/**"
  static let interface: SourceFilesList = "Interface/Sources/**"
  static let demoSources: SourceFilesList = "Demo/Sources/**"
}
