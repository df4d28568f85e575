//! "Did you mean" hints for misspelled mnemonics.

/// The Levenshtein distance of `a` and `b`, compared case-insensitively.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `token`, if one is close enough to be a likely misspelling (at
/// most a third of the token's length away: 1 edit for up to 4 characters, else at least 2).
pub fn closest<'a>(token: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = token.chars().count();
    let limit = if len <= 4 { 1 } else { (len / 3).max(2) };
    candidates
        .into_iter()
        .map(|c| (distance(token, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.len()))
        .map(|(_, c)| c)
}

/// `expected`, followed by "; did you mean `x`?" when a candidate is close to `token`.
pub fn expected_with_hint<'a>(
    expected: &str,
    token: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    match closest(token, candidates) {
        Some(c) => format!("{expected} (did you mean `{c}`?)"),
        None => expected.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_mnemonic() {
        let c = ["sample_lz", "sample_l", "load_lz", "mov"];
        assert_eq!(closest("sample_lzz", c), Some("sample_lz"));
        assert_eq!(closest("MOV", c), Some("mov"));
        assert_eq!(closest("xyzzyplugh", c), None);
        assert_eq!(closest("foo", ["or"]), None);
    }
}
