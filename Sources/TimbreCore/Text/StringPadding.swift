extension String {
    /// Right-aligned in `width` characters: `pad` in front when shorter, as it is when not.
    public func leftPadded(to width: Int, with pad: Character = " ") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
