//
//  GeneratedModules.swift
//  MyPlugin
//
//  Created by 박혜운 on 2023/11/14.
//

import Foundation

//enum FeatureModule: String, CaseIterable {
//  case MyPage
//  case SignIn
//}
//
//enum DomainModule: String, CaseIterable {
//  case UserState
//}
