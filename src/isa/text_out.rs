//! Where printers write text, and the number spellings they share, written digit by digit
//! into the output (no `format!`, no `String` per number): the listing printers of every
//! ISA and the streaming paths ([`crate::stream`]) print through these.

/// Where printed text goes: a `String`, or the byte buffer of a stream (which skips UTF-8
/// checks: everything printed is ASCII or copied from `&str`).
pub trait TextOut {
    /// Appends `s`.
    fn push_text(&mut self, s: &str);
    /// Appends one ASCII byte.
    fn push_ascii(&mut self, b: u8);
    /// Appends ASCII bytes (digits, padding or a text printed before).
    fn push_ascii_slice(&mut self, ascii: &[u8]) {
        for &b in ascii {
            self.push_ascii(b);
        }
    }
    /// The length in bytes.
    fn text_len(&self) -> usize;
    /// Overwrites the ASCII text at byte `at` with `ascii`, as long (a field printed at a
    /// fixed width, rewritten once known).
    fn overwrite_ascii(&mut self, at: usize, ascii: &[u8]);
}

impl TextOut for String {
    fn push_text(&mut self, s: &str) {
        self.push_str(s);
    }
    fn push_ascii(&mut self, b: u8) {
        self.push(char::from(b));
    }
    fn text_len(&self) -> usize {
        self.len()
    }
    fn overwrite_ascii(&mut self, at: usize, ascii: &[u8]) {
        self.replace_range(at..at + ascii.len(), &String::from_utf8_lossy(ascii));
    }
}

impl TextOut for Vec<u8> {
    fn push_text(&mut self, s: &str) {
        self.extend_from_slice(s.as_bytes());
    }
    fn push_ascii(&mut self, b: u8) {
        self.push(b);
    }
    fn push_ascii_slice(&mut self, ascii: &[u8]) {
        self.extend_from_slice(ascii);
    }
    fn text_len(&self) -> usize {
        self.len()
    }
    fn overwrite_ascii(&mut self, at: usize, ascii: &[u8]) {
        self[at..at + ascii.len()].copy_from_slice(ascii);
    }
}

/// Compares what is printed into it with a text, byte by byte as it comes, instead of
/// keeping it: whether a printer prints exactly that text, without building it. (Bytes
/// compared already cannot be compared again: a printer that rewrites its text
/// (`overwrite_ascii`) is told "not the same", never "the same" wrongly.)
pub struct Matches<'a> {
    text: &'a [u8],
    len: usize,
    same: bool,
}

impl<'a> Matches<'a> {
    /// Compares with `text`.
    pub fn new(text: &'a [u8]) -> Self {
        Matches {
            text,
            len: 0,
            same: true,
        }
    }

    /// Whether everything printed is the whole text.
    pub fn all(&self) -> bool {
        self.same && self.len == self.text.len()
    }

    /// Whether everything printed so far is the text's start.
    pub fn so_far(&self) -> bool {
        self.same
    }
}

impl TextOut for Matches<'_> {
    fn push_text(&mut self, s: &str) {
        self.push_ascii_slice(s.as_bytes());
    }
    fn push_ascii_slice(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        self.same &= self.text.get(self.len..end) == Some(bytes);
        self.len = end;
    }
    fn push_ascii(&mut self, b: u8) {
        self.same &= self.text.get(self.len) == Some(&b);
        self.len += 1;
    }
    fn text_len(&self) -> usize {
        self.len
    }
    fn overwrite_ascii(&mut self, _at: usize, _ascii: &[u8]) {
        self.same = false;
    }
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Appends `n` in decimal, as `{}` prints it.
pub fn push_decimal(out: &mut (impl TextOut + ?Sized), n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for d in &digits[i..] {
        out.push_ascii(*d);
    }
}

/// Appends `n` in decimal, at least `min` digits, as `{:0min$}` prints it (`0032`).
pub fn push_decimal_width(out: &mut (impl TextOut + ?Sized), n: u64, min: u32) {
    let digits = n.checked_ilog10().map_or(1, |d| d + 1);
    for _ in digits..min {
        out.push_ascii(b'0');
    }
    push_decimal(out, n);
}

/// Appends a signed `n` in decimal, as `{}` prints it (`-3`).
pub fn push_signed(out: &mut (impl TextOut + ?Sized), n: i64) {
    if n < 0 {
        out.push_ascii(b'-');
    }
    push_decimal(out, n.unsigned_abs());
}

/// Appends `n` as `{:#x}` prints it (`0x6e`, `0x0`).
pub fn push_hex(out: &mut (impl TextOut + ?Sized), n: u64) {
    out.push_text("0x");
    push_hex_digits(out, n, 1);
}

/// Appends `n` as `{:#0w$x}` prints it with `w` = `min` + 2 (`0x` and at least `min`
/// digits: `{:#06x}` is `min` 4).
pub fn push_hex_width(out: &mut (impl TextOut + ?Sized), n: u64, min: u32) {
    out.push_text("0x");
    push_hex_digits(out, n, min);
}

/// Appends `n` in lowercase hex, at least `min` digits.
pub fn push_hex_digits(out: &mut (impl TextOut + ?Sized), n: u64, min: u32) {
    let digits = (64 - n.leading_zeros()).div_ceil(4).max(min);
    for k in (0..digits).rev() {
        // Digits past a `u64`'s 16 are zeros.
        let digit = n.checked_shr(4 * k).unwrap_or(0) & 0xf;
        out.push_ascii(HEX_DIGITS[digit as usize]);
    }
}

/// The 16 lowercase hex digits of `n`, as `{:016x}` prints them (a byte's two digits at a
/// time).
pub fn hex16_digits(n: u64) -> [u8; 16] {
    let mut digits = [0u8; 16];
    for (pair, byte) in digits.chunks_exact_mut(2).zip(n.to_be_bytes()) {
        pair.copy_from_slice(&HEX_PAIRS[usize::from(byte)]);
    }
    digits
}

/// Each byte's two lowercase hex digits.
const HEX_PAIRS: [[u8; 2]; 256] = {
    let mut t = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = [HEX_DIGITS[b >> 4], HEX_DIGITS[b & 0xf]];
        b += 1;
    }
    t
};

/// Appends `n` as `{:#018x}` prints it (`0x` and 16 digits).
pub fn push_hex16(out: &mut (impl TextOut + ?Sized), n: u64) {
    out.push_text("0x");
    out.push_ascii_slice(&hex16_digits(n));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each spelling is `format!`'s, at the edges of its range.
    #[test]
    fn numbers_print_as_format_prints_them() {
        for n in [0u64, 1, 9, 10, 99, 100, 4096, u64::from(u32::MAX), u64::MAX] {
            let mut s = String::new();
            push_decimal(&mut s, n);
            assert_eq!(s, n.to_string());
            s.clear();
            push_hex(&mut s, n);
            assert_eq!(s, format!("{n:#x}"));
            s.clear();
            push_hex16(&mut s, n);
            assert_eq!(s, format!("{n:#018x}"));
            s.clear();
            push_hex_width(&mut s, n, 4);
            assert_eq!(s, format!("{n:#06x}"));
            s.clear();
            push_decimal_width(&mut s, n, 4);
            assert_eq!(s, format!("{n:04}"));
            s.clear();
            push_hex_width(&mut s, n, 20);
            assert_eq!(s, format!("{n:#022x}"));
        }
        for n in [
            0u64,
            0x0123_4567_89ab_cdef,
            0xfedc_ba98_7654_3210,
            u64::MAX,
            1 << 63,
        ] {
            assert_eq!(hex16_digits(n), format!("{n:016x}").as_bytes(), "{n:#x}");
        }
        for n in [0i64, -1, 7, -8, i64::MIN, i64::MAX] {
            let mut s = String::new();
            push_signed(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }

    /// `Matches` says whether what is printed into it is its whole text.
    #[test]
    fn matches_is_printed_text_equality() {
        let print = |out: &mut dyn FnMut(&mut Matches)| {
            let texts = ["", "TEX", "TEX.P", "TEX.P R0", "TEX.P R0, R1", "TEXS"];
            texts.map(|t| {
                let mut m = Matches::new(t.as_bytes());
                out(&mut m);
                m.all()
            })
        };
        let mut pieces = |m: &mut Matches| {
            m.push_text("TEX");
            m.push_ascii(b'.');
            m.push_text("P");
        };
        assert_eq!(
            print(&mut pieces),
            [false, false, true, false, false, false]
        );
        assert_eq!(
            print(&mut |_| {}),
            [true, false, false, false, false, false]
        );
        let mut overwritten = |m: &mut Matches| {
            m.push_text("TEX.T");
            m.overwrite_ascii(4, b"P");
        };
        // A rewritten text is never "the same".
        assert_eq!(print(&mut overwritten), [false; 6]);
    }
}
