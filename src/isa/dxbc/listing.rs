//! The items of an fxc listing as [`super::parse_text`] reads them: lines before the SM4/SM5
//! profile line (signature comments, a Level9 listing) are kept as they are; after it,
//! comments, blank lines and `#line` directives are kept and every other line is an
//! instruction or declaration, an immediate constant buffer continuing over the lines until
//! its braces balance. Without a profile line every non-comment line is an instruction
//! (single instructions on the command line).
//!
//! The whole-program parser and the streaming path ([`super::stream`]) walk a listing with
//! the same [`Items`], so they agree on what is code and where it is.

use crate::ir::Span;

/// One item: a line, or the lines of an immediate constant buffer.
pub struct Item<'a> {
    /// The item's text: its lines joined by `\n`, without the last line's terminator.
    pub text: &'a str,
    /// Where it starts (byte offset, line, column 1).
    pub span: Span,
    /// For an instruction or declaration, the length of its indentation in bytes.
    pub code: Option<usize>,
}

/// The items of a listing, in order; [`Items::version`] is the profile's version token once
/// the profile line has been read.
pub struct Items<'a> {
    src: &'a str,
    /// Where the next line starts; `None` after the last line.
    next: Option<usize>,
    line: u32,
    offset: usize,
    /// Where the profile line starts and its version token, when the listing has one.
    profile: Option<(usize, u32)>,
    /// The version token of the profile line, once read.
    pub version: Option<u32>,
}

/// What each byte does to the brace depth: `{` 1, `}` -1, anything else 0 (a table: no
/// branch per byte).
const BRACES: [i8; 256] = {
    let mut t = [0i8; 256];
    t[b'{' as usize] = 1;
    t[b'}' as usize] = -1;
    t
};

/// The line of `src` at byte `at` and where the one after it starts. A final line
/// terminator ends the last line (no empty line after it); an empty input is one empty
/// line.
fn line_at(src: &str, at: usize) -> (&str, Option<usize>) {
    match memchr::memchr(b'\n', &src.as_bytes()[at..]) {
        Some(n) => {
            let next = at + n + 1;
            (&src[at..at + n], (next < src.len()).then_some(next))
        }
        None => (&src[at..], None),
    }
}

/// The braces `line` opens minus those it closes.
fn depth(line: &str) -> i64 {
    line.bytes()
        .map(|b| i64::from(BRACES[usize::from(b)]))
        .sum()
}

impl<'a> Items<'a> {
    /// The items of `src`.
    pub fn new(src: &'a str) -> Self {
        let mut profile = None;
        let mut next = Some(0);
        while let Some(at) = next {
            let (line, after) = line_at(src, at);
            if let Some(version) = super::profile_version(line) {
                profile = Some((at, version));
                break;
            }
            next = after;
        }
        Items {
            src,
            next: Some(0),
            line: 0,
            offset: 0,
            profile,
            version: None,
        }
    }

    /// Whether `src` ends with a line terminator (its last line is terminated).
    pub fn final_newline(&self) -> bool {
        self.src.ends_with('\n')
    }
}

impl<'a> Iterator for Items<'a> {
    type Item = Item<'a>;

    fn next(&mut self) -> Option<Item<'a>> {
        let start = self.next?;
        let (line, mut after) = line_at(self.src, start);
        self.line += 1;
        let span = Span {
            offset: self.offset,
            line: self.line,
            column: 1,
        };
        // Most lines start with what is not whitespace (checked for ASCII at once).
        let trimmed = match line.as_bytes().first() {
            Some(&b) if b.is_ascii() && !char::from(b).is_whitespace() => line,
            _ => line.trim_start(),
        };
        let mut end = start + line.len();
        let mut code = None;
        if let (None, Some((at, version))) = (self.version, self.profile) {
            if at == start {
                self.version = Some(version);
            }
        } else if !trimmed.is_empty() && !trimmed.starts_with("//") && !trimmed.starts_with("#line")
        {
            // An immediate constant buffer continues until its braces balance (a line
            // without `{` opens none).
            let mut open = match memchr::memchr(b'{', line.as_bytes()) {
                Some(_) => depth(line),
                None => 0,
            };
            while open > 0 {
                let Some(at) = after else { break };
                let (more, rest) = line_at(self.src, at);
                self.line += 1;
                end = at + more.len();
                open += depth(more);
                after = rest;
            }
            code = Some(line.len() - trimmed.len());
        }
        self.next = after;
        let text = &self.src[start..end];
        self.offset += text.len() + 1;
        Some(Item { text, span, code })
    }
}
