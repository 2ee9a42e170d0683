/// The whole percentage every output shows for a fraction: clamped to 0...100 and rounded down,
/// so that 100 means done. A tolerance of 1e-9 keeps fractions such as 0.29, whose product
/// with 100 lands just below 29 in binary floating point, at their written value. `nil` for
/// `nil` or not a number. Shared by the terminal spinner and the UI product's overlays.
package func wholePercent(of fraction: Double?) -> Int? {
    guard let fraction, !fraction.isNaN else { return nil }
    return Int((min(max(fraction, 0), 1) * 100 + 1e-9).rounded(.down))
}
