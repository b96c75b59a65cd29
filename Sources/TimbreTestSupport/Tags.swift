import Foundation
import Testing

extension Tag {
    /// Tests that start processes or servers (the sandbox, TLS servers, the keyring, tmux, the
    /// `timbre` binary). `scripts/test.sh --unit` skips them; CI runs both tiers.
    @Tag public static var integration: Self
}

/// The tier `scripts/test.sh` asked for: `TIMBRE_TEST_TIER=unit` runs the fast tier alone.
public enum TestTier {
    public static let variable = "TIMBRE_TEST_TIER"

    /// False only when the fast tier alone was asked for; anything else (CI, a bare `swift test`)
    /// runs everything.
    public static var runsIntegration: Bool {
        ProcessInfo.processInfo.environment[variable] != "unit"
    }
}

extension Trait where Self == ConditionTrait {
    /// Goes beside `.tags(.integration)` on every suite or test that starts a process or server:
    /// the tag names the tier, this skips it when `scripts/test.sh --unit` asked for the fast tier.
    /// (`swift test` has no tag filter on the command line, hence the environment switch.)
    public static var integrationTier: Self {
        .enabled(if: TestTier.runsIntegration, "integration tier: skipped by TIMBRE_TEST_TIER=unit (scripts/test.sh --unit)")
    }
}
