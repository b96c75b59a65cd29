public enum TimbreVersion {
    public static let current = "0.1.0"
}
