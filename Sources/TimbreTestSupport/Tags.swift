import Testing

extension Tag {
    /// Tests that start processes or servers (the sandbox, TLS servers, the keyring, tmux, the
    /// `timbre` binary). `scripts/test.sh --unit` skips them; CI runs both tiers.
    @Tag public static var integration: Self
}
