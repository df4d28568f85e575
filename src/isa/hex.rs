//! Hex words on the command line (`--hex`), shared by every codec: each word is read as the
//! ISA's unit and laid out little-endian, so a codec decodes the bytes as it decodes a binary.

use crate::error::DecodeError;

/// How one hex word maps to bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HexUnit {
    /// Any even number of digits, one byte per pair, in order (vISA instruction bytes).
    Bytes,
    /// A 32-bit value of up to 8 digits (a DXBC token).
    Dword,
    /// A 64-bit value of exactly 16 digits (an NVIDIA instruction word).
    Qword,
}

/// The bytes `words` stand for; `0x` prefixes are optional. An error names the word and the
/// byte offset it would have started at.
pub fn parse_hex_words(words: &[&str], unit: HexUnit) -> Result<Vec<u8>, DecodeError> {
    let mut bytes = Vec::new();
    for (i, word) in words.iter().flat_map(|w| w.split_whitespace()).enumerate() {
        let digits = word
            .strip_prefix("0x")
            .or_else(|| word.strip_prefix("0X"))
            .unwrap_or(word);
        let fail = |what: &str| DecodeError {
            offset: bytes.len(),
            reason: format!("word {}: `{word}` is not {what}", i + 1),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(fail(unit.describe()));
        }
        match unit {
            HexUnit::Bytes => {
                if digits.len() % 2 != 0 {
                    return Err(fail(unit.describe()));
                }
                for pair in digits.as_bytes().chunks(2) {
                    let hi = hex_value(pair[0]);
                    let lo = hex_value(pair[1]);
                    bytes.push(hi << 4 | lo);
                }
            }
            HexUnit::Dword => {
                let v = (digits.len() <= 8)
                    .then(|| u32::from_str_radix(digits, 16).ok())
                    .flatten()
                    .ok_or_else(|| fail(unit.describe()))?;
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            HexUnit::Qword => {
                let v = (digits.len() == 16)
                    .then(|| u64::from_str_radix(digits, 16).ok())
                    .flatten()
                    .ok_or_else(|| fail(unit.describe()))?;
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    Ok(bytes)
}

impl HexUnit {
    fn describe(self) -> &'static str {
        match self {
            HexUnit::Bytes => "hex bytes (an even number of hex digits)",
            HexUnit::Dword => "a hexadecimal dword (at most 8 digits)",
            HexUnit::Qword => "16 hex digits",
        }
    }
}

fn hex_value(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        _ => digit - b'A' + 10,
    }
}

/// Writes `bytes` as lowercase hex pairs onto `out`, `sep` between pairs (`"0a 1b"` with
/// `" "`, `"0a1b"` with `""`): the one spelling of raw bytes in listings, comments and
/// messages.
pub fn push_bytes_hex(out: &mut String, bytes: &[u8], sep: &str) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() * (2 + sep.len()));
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
}

/// [`push_bytes_hex`] into a new string.
pub fn bytes_hex(bytes: &[u8], sep: &str) -> String {
    let mut s = String::new();
    push_bytes_hex(&mut s, bytes, sep);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(
            parse_hex_words(&["0x0102", "a0"], HexUnit::Bytes).unwrap(),
            [1, 2, 0xa0]
        );
        assert_eq!(
            parse_hex_words(&["1"], HexUnit::Dword).unwrap(),
            [1, 0, 0, 0]
        );
        assert_eq!(
            parse_hex_words(&["d83006e060570404"], HexUnit::Qword).unwrap(),
            0xd83006e060570404u64.to_le_bytes()
        );
        let e = parse_hex_words(&["00", "abc"], HexUnit::Bytes).unwrap_err();
        assert_eq!(e.offset, 1);
        assert!(e.reason.contains("word 2"), "{}", e.reason);
        assert!(parse_hex_words(&["123456789"], HexUnit::Dword).is_err());
        assert!(parse_hex_words(&["d83006e06057040"], HexUnit::Qword).is_err());
    }

    #[test]
    fn bytes_are_spelled_as_lowercase_pairs() {
        assert_eq!(bytes_hex(&[0x0a, 0x1b, 0xff, 0x00], " "), "0a 1b ff 00");
        assert_eq!(bytes_hex(&[0xde, 0xad], ""), "dead");
        assert_eq!(bytes_hex(&[], " "), "");
        let all: Vec<u8> = (0..=255).collect();
        let expected: Vec<String> = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(bytes_hex(&all, " "), expected.join(" "));
    }
}
