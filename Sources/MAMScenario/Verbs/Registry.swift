/// Every scenario verb, in the order the docs and messages list them. A new verb is a file in
/// this folder and a line here; `VerbRegistryTests` fails until `docs/SCENARIOS.md`'s verb
/// reference and `schemas/scenario.schema.json` are regenerated (`scripts/generate-verb-reference`).
extension Verb {
    static let registry: [any StepVerb.Type] = [
        // v1
        LaunchStep.self, KillStep.self, SignInStep.self, SignOutStep.self, SwitchIdentityStep.self,
        ShareStep.self, ShareTargetsStep.self, CopyStep.self, PasteStep.self, SaveStep.self, OpenStep.self,
        KeychainSetStep.self, KeychainGetStep.self, PrintStep.self, NotifyStep.self, WipeStep.self,
        SetPolicyStep.self, AdvanceClockStep.self, ExpectStateStep.self,
        // v1.1
        PauseStep.self, ResumeStep.self, SetNetworkStep.self, SetDeviceStep.self, ManageAppStep.self, AppConfigDataStep.self, SetAllowedAccountsStep.self,
        WriteFileStep.self, ReadFileStep.self, ProtectStep.self, UnprotectStep.self, ProtectionInfoStep.self, OpenURLStep.self,
        AppConfigStep.self, SetAppConfigStep.self, ScreenCaptureStep.self,
        ManagedConfigStep.self, ManagedSecretStep.self, ManagedSecretIdsStep.self, ApplyDeclarationsStep.self,
        RemoveDeclarationStep.self, SignWithIdentityStep.self,
        AcquireTokenStep.self, RemediateStep.self, SetConditionalAccessStep.self,
        // v1.2
        PolicyQueryStep.self, CanReceiveStep.self, UpdateOSStep.self, RemediationInProgressStep.self, FinishRemediationStep.self, ShowAccountsStep.self,
    ]
}
