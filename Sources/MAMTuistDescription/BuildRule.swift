// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A build rule: how files of a type are processed.
public struct BuildRule: Codable, Equatable, Sendable {
    public var compilerSpec: CompilerSpec
    /// The name pattern, for `.sourceFilesWithNamesMatching`.
    public var filePatterns: String?
    public var fileType: FileType
    public var name: String?
    public var outputFiles: [String]
    public var inputFiles: [String]
    public var outputFilesCompilerFlags: [String]
    /// The script, for `.customScript`.
    public var script: String?
    public var runOncePerArchitecture: Bool?

    public static func buildRule(
        name: String? = nil,
        fileType: FileType,
        filePatterns: String? = nil,
        compilerSpec: CompilerSpec,
        inputFiles: [String] = [],
        outputFiles: [String] = [],
        outputFilesCompilerFlags: [String] = [],
        script: String? = nil,
        runOncePerArchitecture: Bool = false
    ) -> Self {
        self.init(compilerSpec: compilerSpec, filePatterns: filePatterns, fileType: fileType, name: name, outputFiles: outputFiles,
                  inputFiles: inputFiles, outputFilesCompilerFlags: outputFilesCompilerFlags, script: script,
                  runOncePerArchitecture: runOncePerArchitecture)
    }
}

extension BuildRule {
    /// The tool a rule uses (Xcode's "Using" menu).
    public enum CompilerSpec: Codable, Sendable {
        case appIntentsMetadataExtractor
        case appShortcutStringsMetadataExtractor
        case appleClang
        case assetCatalogCompiler
        case codeSign
        case compileRealityComposerProject
        case compileSceneKitShaders
        case compileSkybox
        case compileUSDZ
        case compressPNG
        case copyPlistFile
        case copySceneKitAssets
        case copyStringsFile
        case copyTiffFile
        case coreDataMappingModelCompiler
        case coreMLModelCompiler
        case dataModelCompiler
        case defaultCompiler
        case dTrace
        case generateSpriteKitTextureAtlas
        case iconutil
        case instrumetsPackageBuilder
        case intentDefinitionCompiler
        case interfaceBuilderNIBPostprocessor
        case interfaceBuilderStoryboardCompiler
        case interfaceBuilderStoryboardLinker
        case interfaceBuilderStoryboardPostprocessor
        case interfaceBuilderXIBCompiler
        case ioKitInterfaceGenerator
        case lex
        case lsRegisterURL
        case metalCompiler
        case metalLinker
        case mig
        case nasm
        case nmedit
        case openCL
        case osaCompile
        case pbxcp
        case processSceneKitDocument
        case processXCAppExtensionPoints
        case rez
        case stripSymbols
        case swiftCompiler
        case swiftABIBaselineGenerator
        case swiftFrameworkABIChecker
        case textBasedAPITool
        case unifdef
        case yacc
        case customScript
    }

    /// The files a rule processes (Xcode's "Process" menu).
    public enum FileType: Codable, Sendable {
        case instrumentsPackageDefinition
        case metalAIR
        case machO
        case machOObject
        case siriKitIntent
        case coreMLMachineLearning
        case rcProjectDocument
        case skyboxDocument
        case interfaceBuilderStoryboard
        case interfaceBuilder
        case documentationCatalog
        case coreMLMachineLearningModelPackage
        case assemblyAsm
        case assemblyAsmAsm
        case llvmAssembly
        case cSource
        case clipsSource
        case cppSource
        case dtraceSource
        case dylanSource
        case fortranSource
        case glslSource
        case iigSource
        case javaSource
        case lexSource
        case metalShaderSource
        case migSource
        case nasmAssembly
        case openCLSource
        case pascalSource
        case protobufSource
        case rezSource
        case swiftSource
        case yaccSource
        case localizationString
        case localizationStringDictionary
        case xcAppExtensionPoints
        case xcodeSpecificationPlist
        case dae
        case nib
        case interfaceBuilderStoryboardPackage
        case classModel
        case dataModel
        case dataModelVersion
        case mappingModel
        case sourceFilesWithNamesMatching
    }
}
