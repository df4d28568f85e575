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
    has_profile: bool,
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

/// The line of `src` at byte `at`, where the one after it starts, and the braces it opens
/// minus those it closes (one pass over its bytes). A final line terminator ends the last
/// line (no empty line after it); an empty input is one empty line.
fn line_at(src: &str, at: usize) -> (&str, Option<usize>, i64) {
    let mut depth = 0i64;
    for (n, b) in src.as_bytes()[at..].iter().enumerate() {
        if *b == b'\n' {
            let next = at + n + 1;
            return (&src[at..at + n], (next < src.len()).then_some(next), depth);
        }
        depth += i64::from(BRACES[usize::from(*b)]);
    }
    (&src[at..], None, depth)
}

impl<'a> Items<'a> {
    /// The items of `src`.
    pub fn new(src: &'a str) -> Self {
        let mut has_profile = false;
        let mut next = Some(0);
        while let Some(at) = next {
            let (line, after, _) = line_at(src, at);
            if super::profile_version(line).is_some() {
                has_profile = true;
                break;
            }
            next = after;
        }
        Items {
            src,
            next: Some(0),
            line: 0,
            offset: 0,
            has_profile,
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
        let (line, mut after, depth) = line_at(self.src, start);
        self.line += 1;
        let span = Span {
            offset: self.offset,
            line: self.line,
            column: 1,
        };
        let trimmed = line.trim();
        let in_code = self.version.is_some() || !self.has_profile;
        let mut end = start + line.len();
        let mut code = None;
        if self.version.is_none() && self.has_profile {
            self.version = super::profile_version(line);
        } else if in_code
            && !trimmed.is_empty()
            && !trimmed.starts_with("//")
            && !trimmed.starts_with("#line")
        {
            // An immediate constant buffer continues until its braces balance.
            let mut open = depth;
            while open > 0 {
                let Some(at) = after else { break };
                let (more, rest, depth) = line_at(self.src, at);
                self.line += 1;
                end = at + more.len();
                open += depth;
                after = rest;
            }
            code = Some(line.len() - line.trim_start().len());
        }
        self.next = after;
        let text = &self.src[start..end];
        self.offset += text.len() + 1;
        Some(Item { text, span, code })
    }
}
