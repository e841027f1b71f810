//
//  Plugin.swift
//  Winey
//
//  Created by 박혜운 on 2023/12/04.
//

import ProjectDescription

let EnvPlugin = Plugin(name: "EnvPlugin")
