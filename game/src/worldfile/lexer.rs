//! The lenient lexical rules of CircleMUD area files, shared by every file kind.
//!
//! A string runs to the first `~` (possibly across lines); CR before LF is dropped;
//! blank lines and `*` comment lines between records are skipped; flags are decimal
//! numbers or letter bits (`a`..`z` = bits 0..25, `A`..`Z` = bits 26..51).

pub struct Lexer<'a> {
    lines: Vec<&'a str>,
    pos: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LexError {
    pub line: u32,
    pub message: String,
}

pub type LexResult<T> = Result<T, LexError>;

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str) -> Self {
        let lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
        Lexer { lines, pos: 0 }
    }

    /// 1-based number of the line that would be read next.
    pub fn line_no(&self) -> u32 {
        (self.pos + 1) as u32
    }

    pub fn err<T>(&self, message: impl Into<String>) -> LexResult<T> {
        Err(LexError { line: self.pos as u32, message: message.into() })
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.lines.len()
    }

    /// The next raw line, as is.
    pub fn raw_line(&mut self) -> Option<&'a str> {
        let l = self.lines.get(self.pos).copied();
        if l.is_some() {
            self.pos += 1;
        }
        l
    }

    /// Looks at the next line that is not blank or a `*` comment, without consuming it.
    pub fn peek_content(&mut self) -> Option<&'a str> {
        self.skip_blank_and_comments();
        self.lines.get(self.pos).copied()
    }

    fn skip_blank_and_comments(&mut self) {
        while let Some(l) = self.lines.get(self.pos) {
            let t = l.trim();
            if t.is_empty() || t.starts_with('*') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// The next line that is not blank or a comment, trimmed.
    pub fn content_line(&mut self) -> LexResult<&'a str> {
        self.skip_blank_and_comments();
        match self.raw_line() {
            Some(l) => Ok(l.trim()),
            None => self.err("unexpected end of file"),
        }
    }

    /// A `~`-terminated string. Text after the `~` on its line is ignored.
    pub fn string(&mut self) -> LexResult<String> {
        let mut out = String::new();
        let mut first = true;
        loop {
            let Some(line) = self.raw_line() else {
                return self.err("unterminated string (no ~ before end of file)");
            };
            if !first {
                out.push('\n');
            }
            first = false;
            if let Some(i) = line.find('~') {
                out.push_str(&line[..i]);
                return Ok(out);
            }
            out.push_str(line);
        }
    }

    /// A string in tbaMUD's later rule, used for DG Scripts: it ends at the first line
    /// whose last character is `~`; a `~` inside a line is text (scripts write `~%arg%`).
    pub fn string_to_trailing_tilde(&mut self) -> LexResult<String> {
        let mut out = String::new();
        let mut first = true;
        loop {
            let Some(line) = self.raw_line() else {
                return self.err("unterminated string (no line ending in ~ before end of file)");
            };
            if !first {
                out.push('\n');
            }
            first = false;
            if let Some(body) = line.trim_end().strip_suffix('~') {
                out.push_str(body);
                return Ok(out);
            }
            out.push_str(line);
        }
    }

    /// Skips forward to the next line starting with `#` or `$` (error recovery).
    pub fn skip_to_record(&mut self) {
        while let Some(l) = self.lines.get(self.pos) {
            let t = l.trim_start();
            if t.starts_with('#') || t.starts_with('$') {
                return;
            }
            self.pos += 1;
        }
    }

    /// Reads a line of whitespace-separated fields (skipping blank lines).
    pub fn fields(&mut self) -> LexResult<Vec<&'a str>> {
        Ok(self.content_line()?.split_whitespace().collect())
    }

    /// The `T vnum` lines that tbaMUD writes after a room's `S` or at the end of a mob:
    /// DG Scripts triggers attached to the record just read.
    pub fn trailing_triggers(&mut self) -> LexResult<Vec<u32>> {
        let mut out = Vec::new();
        while let Some(l) = self.peek_content() {
            let t = l.trim();
            if !(t == "T" || t.starts_with("T ") || t.starts_with("T\t")) {
                break;
            }
            let line = self.line_no();
            self.content_line()?;
            out.push(trigger_vnum(t, line)?);
        }
        Ok(out)
    }
}

/// The vnum of a `T vnum` attachment line.
pub fn trigger_vnum(line: &str, line_no: u32) -> LexResult<u32> {
    let t = line.trim();
    let rest = t.strip_prefix('T').unwrap_or(t);
    match rest.split_whitespace().next().map(str::parse::<u32>) {
        Some(Ok(v)) => Ok(v),
        _ => Err(LexError {
            line: line_no,
            message: format!("trigger line '{}' names no trigger vnum", t.chars().take(40).collect::<String>()),
        }),
    }
}

/// Parses a record header `#1234` (a trailing `~` is allowed, as shop files write it).
pub fn parse_vnum_header(line: &str) -> Option<u32> {
    let rest = line.trim().strip_prefix('#')?;
    let rest = rest.trim_end_matches('~').trim();
    rest.parse().ok()
}

pub fn int(tok: Option<&&str>, what: &str, line: u32) -> LexResult<i64> {
    match tok {
        Some(t) => t.parse::<i64>().map_err(|_| LexError { line, message: format!("{what}: '{t}' is not a number") }),
        None => Err(LexError { line, message: format!("missing {what}") }),
    }
}

pub fn int_or(tok: Option<&&str>, default: i64) -> i64 {
    tok.and_then(|t| t.parse().ok()).unwrap_or(default)
}

/// A flag word: a (possibly negative) decimal number or letter bits.
pub fn flags(tok: &str) -> Option<u64> {
    if let Ok(n) = tok.parse::<i64>() {
        return Some(n as u64);
    }
    let mut v = 0u64;
    for c in tok.chars() {
        let bit = match c {
            'a'..='z' => c as u32 - 'a' as u32,
            'A'..='Z' => 26 + c as u32 - 'A' as u32,
            _ => return None,
        };
        v |= 1u64 << bit;
    }
    Some(v)
}

pub fn flag_field(tok: Option<&&str>, what: &str, line: u32) -> LexResult<u64> {
    match tok {
        Some(t) => flags(t).ok_or_else(|| LexError { line, message: format!("{what}: '{t}' is not a flag word") }),
        None => Err(LexError { line, message: format!("missing {what}") }),
    }
}

/// `NdS+P` (or `NdS-P`, or `NdS`).
pub fn dice(tok: &str) -> Option<super::types::Dice> {
    let (num, rest) = tok.split_once(['d', 'D'])?;
    let (size, plus) = if let Some((s, p)) = rest.split_once('+') {
        (s, p.parse().ok()?)
    } else if let Some((s, p)) = rest.split_once('-') {
        (s, -p.parse::<i32>().ok()?)
    } else {
        (rest, 0)
    };
    Some(super::types::Dice { num: num.parse().ok()?, size: size.parse().ok()?, plus })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_end_at_first_tilde_and_drop_cr() {
        let mut lx = Lexer::new("Hello\r\nworld~ trailing\r\nnext~\n");
        assert_eq!(lx.string().unwrap(), "Hello\nworld");
        assert_eq!(lx.string().unwrap(), "next");
        assert!(lx.string().is_err());
    }

    #[test]
    fn script_strings_end_at_a_line_ending_in_tilde() {
        let mut lx = Lexer::new("set arg ~%arg%\nsay a~ b\n%echo% bye~\nnext~\n");
        assert_eq!(lx.string_to_trailing_tilde().unwrap(), "set arg ~%arg%\nsay a~ b\n%echo% bye");
        assert_eq!(lx.string_to_trailing_tilde().unwrap(), "next");
        assert!(lx.string_to_trailing_tilde().is_err());
    }

    #[test]
    fn flags_are_numbers_or_letters() {
        assert_eq!(flags("0"), Some(0));
        assert_eq!(flags("32768"), Some(32768));
        assert_eq!(flags("abd"), Some(0b1011));
        assert_eq!(flags("A"), Some(1 << 26));
        assert_eq!(flags("a1"), None);
    }

    #[test]
    fn dice_forms() {
        let d = dice("22d5+230").unwrap();
        assert_eq!((d.num, d.size, d.plus), (22, 5, 230));
        let d = dice("1d4-1").unwrap();
        assert_eq!((d.num, d.size, d.plus), (1, 4, -1));
        assert_eq!(dice("1d6").unwrap().plus, 0);
        assert!(dice("x").is_none());
    }

    #[test]
    fn comments_and_blanks_are_skipped_between_records() {
        let mut lx = Lexer::new("\n* comment\n   \n#12\n");
        assert_eq!(lx.content_line().unwrap(), "#12");
        assert_eq!(parse_vnum_header("#8034~"), Some(8034));
    }
}
