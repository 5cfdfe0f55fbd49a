//! LSP's base protocol on a byte stream: header blocks (`Content-Length: N`, a blank line) each
//! followed by N bytes of body. Reading never fails on bad input: a block that cannot be used
//! becomes one [`Frame::Malformed`], and the reader finds the next message by looking for the
//! next `Content-Length:`. A body longer than the limit is read and dropped in pieces, never
//! held whole.

use std::io::{self, BufRead};

/// The largest body the server reads (64 MiB); longer ones are dropped unread.
pub const MAX_BODY_BYTES: u64 = 64 << 20;

/// The longest header line read; a longer one makes its block malformed.
const MAX_HEADER_LINE: usize = 8 << 10;

/// Where the reader picks up again after bytes it cannot frame.
const MARKER: &[u8] = b"Content-Length:";

/// What the stream held next.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// The body of a well-framed message (not yet known to be JSON).
    Body(Vec<u8>),
    /// Bytes that are no usable message, and why.
    Malformed(String),
    /// A message whose body exceeded the limit: its `Content-Length` (the body was skipped).
    TooLarge(u64),
}

/// Reads [`Frame`]s from a byte stream.
pub struct FrameReader<R> {
    input: R,
    max_body: u64,
    /// Looking for [`MARKER`]: what came before is no message.
    skipping: bool,
    /// Bytes that start the next line: the marker found while skipping, or a whole line
    /// (ending in `\n`) that followed stray bytes.
    pending: Vec<u8>,
}

/// What one header block said.
#[derive(Default)]
struct Header {
    lines: usize,
    length: Option<u64>,
    problem: Option<String>,
}

/// One line of the header (without its line ending), or a sign that it was too long.
enum Line {
    Text(Vec<u8>),
    TooLong,
}

impl<R: BufRead> FrameReader<R> {
    /// A reader of `input` that drops bodies longer than `max_body` bytes.
    pub fn new(input: R, max_body: u64) -> FrameReader<R> {
        FrameReader {
            input,
            max_body,
            skipping: false,
            pending: Vec::new(),
        }
    }

    /// The next frame, or `None` at the end of the input.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        let mut header = Header::default();
        loop {
            if self.skipping {
                if !self.skip_to_marker()? {
                    return Ok(None);
                }
                self.skipping = false;
            }
            let line = match self.read_line()? {
                None => return Ok(None),
                Some(Line::TooLong) => {
                    self.skipping = true;
                    return Ok(Some(Frame::Malformed(format!(
                        "a header line longer than {MAX_HEADER_LINE} bytes"
                    ))));
                }
                Some(Line::Text(line)) => line,
            };
            if line.is_empty() {
                if header.lines == 0 {
                    continue; // a stray line break between messages
                }
                return self.finish(header).map(Some);
            }
            let stray_prefix = find(&line, MARKER).is_some_and(|at| at > 0);
            if let Some((name, value)) = header_field(&line).filter(|_| !stray_prefix) {
                header.lines += 1;
                if name.eq_ignore_ascii_case(b"content-length") {
                    header.read_length(value);
                }
                continue;
            }
            // Not a header line: report it, and resume at a `Content-Length:` later on the line
            // if there is one, else at the next one in the stream.
            match find(&line, MARKER) {
                Some(at) => self.pending = [&line[at..], b"\n"].concat(),
                None => self.skipping = true,
            }
            let why = if header.lines == 0 {
                "bytes outside any message"
            } else {
                "a header line that is not `Name: value`"
            };
            return Ok(Some(Frame::Malformed(why.to_string())));
        }
    }

    /// The frame a complete header block announces (reading or skipping its body).
    fn finish(&mut self, header: Header) -> io::Result<Frame> {
        let length = match (header.problem, header.length) {
            (Some(problem), _) => {
                self.skipping = true;
                return Ok(Frame::Malformed(problem));
            }
            (None, None) => {
                // The body's end is unknown: resume at the next header.
                self.skipping = true;
                return Ok(Frame::Malformed("a header without `Content-Length`".into()));
            }
            (None, Some(length)) => length,
        };
        if length > self.max_body {
            self.discard(length)?;
            return Ok(Frame::TooLarge(length));
        }
        // `length` is at most `max_body`, which the caller chose to fit in memory.
        let mut body = vec![0; length as usize];
        self.input.read_exact(&mut body)?;
        Ok(Frame::Body(body))
    }

    /// One line without its line ending (`\n` or `\r\n`), `None` at the end of the input.
    fn read_line(&mut self) -> io::Result<Option<Line>> {
        let mut line = std::mem::take(&mut self.pending);
        if line.last() == Some(&b'\n') {
            line.pop();
            return Ok(Some(Line::Text(line)));
        }
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                // The end of the input: a last line without a line ending is no complete header.
                return Ok(None);
            }
            let room = (MAX_HEADER_LINE + 1).saturating_sub(line.len());
            let (take, done) = match buf.iter().take(room).position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len().min(room), false),
            };
            line.extend_from_slice(&buf[..take]);
            self.input.consume(take);
            if done {
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(Some(Line::Text(line)));
            }
            if line.len() > MAX_HEADER_LINE {
                return Ok(Some(Line::TooLong));
            }
        }
    }

    /// Consume input up to and including the next [`MARKER`] (left in `pending`); `false` at
    /// the end of the input.
    fn skip_to_marker(&mut self) -> io::Result<bool> {
        // The marker has no proper prefix that is also its suffix, so after a mismatch the
        // search restarts at the current byte.
        let mut matched = 0;
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                return Ok(false);
            }
            let mut used = buf.len();
            for (i, &b) in buf.iter().enumerate() {
                matched = if b == MARKER[matched] {
                    matched + 1
                } else {
                    usize::from(b == MARKER[0])
                };
                if matched == MARKER.len() {
                    used = i + 1;
                    break;
                }
            }
            self.input.consume(used);
            if matched == MARKER.len() {
                self.pending = MARKER.to_vec();
                return Ok(true);
            }
        }
    }

    /// Read and drop `length` bytes.
    fn discard(&mut self, mut length: u64) -> io::Result<()> {
        while length > 0 {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let n = buf.len().min(usize::try_from(length).unwrap_or(usize::MAX));
            self.input.consume(n);
            length -= n as u64;
        }
        Ok(())
    }
}

impl Header {
    fn read_length(&mut self, value: &[u8]) {
        let parsed = std::str::from_utf8(value)
            .ok()
            .map(str::trim)
            .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|v| v.parse::<u64>().ok());
        match (parsed, self.length) {
            (None, _) => {
                self.problem = Some("a `Content-Length` that is not a number of bytes".into())
            }
            (Some(n), Some(m)) if n != m => {
                self.problem = Some("two different `Content-Length` headers".into())
            }
            (Some(n), _) => self.length = Some(n),
        }
    }
}

/// `Name: value` with `Name` an HTTP token.
fn header_field(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = line.iter().position(|&b| b == b':')?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    (!name.is_empty() && name.iter().all(token)).then_some((name, value))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Frame> {
        frames_with(input, MAX_BODY_BYTES)
    }

    fn frames_with(input: &[u8], max: u64) -> Vec<Frame> {
        // A small buffer, so that lines and markers straddle refills.
        let mut r = FrameReader::new(io::BufReader::with_capacity(7, input), max);
        let mut out = Vec::new();
        while let Ok(Some(f)) = r.next_frame() {
            out.push(f);
        }
        out
    }

    fn body(s: &str) -> Frame {
        Frame::Body(s.as_bytes().to_vec())
    }

    fn bad(s: &str) -> Frame {
        Frame::Malformed(s.into())
    }

    #[test]
    fn well_framed_messages_with_any_headers_and_line_endings() {
        let input =
            b"Content-Length: 2\r\n\r\n{}content-length:3\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n[1]";
        assert_eq!(frames(input), vec![body("{}"), body("[1]")]);
    }

    #[test]
    fn a_header_without_length_is_one_error_and_its_body_is_skipped() {
        let input =
            b"Content-Type: x\r\n\r\n{\"id\": 1,\n \"method\": \"a\"}Content-Length: 2\r\n\r\n{}";
        assert_eq!(
            frames(input),
            vec![bad("a header without `Content-Length`"), body("{}")]
        );
    }

    #[test]
    fn stray_bytes_before_a_message_are_one_error() {
        assert_eq!(
            frames(b"junk\r\nmore junk Content-Length: 2\r\n\r\n{}"),
            vec![bad("bytes outside any message"), body("{}")]
        );
        assert_eq!(
            frames(b"junkContent-Length: 2\r\n\r\n{}"),
            vec![bad("bytes outside any message"), body("{}")]
        );
        assert_eq!(
            frames(b"\r\n\r\nContent-Length: 2\r\n\r\n{}"),
            vec![body("{}")]
        );
    }

    #[test]
    fn bad_lengths_and_header_lines_are_errors() {
        let input = b"Content-Length: -3\r\n\r\nabcContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}Content-Length: 1\r\nno colon\r\n\r\nxContent-Length: 1\r\n\r\n1";
        assert_eq!(
            frames(input),
            vec![
                bad("a `Content-Length` that is not a number of bytes"),
                bad("two different `Content-Length` headers"),
                bad("a header line that is not `Name: value`"),
                body("1"),
            ]
        );
    }

    #[test]
    fn a_body_over_the_limit_is_skipped_and_reading_goes_on() {
        let input = b"Content-Length: 12\r\n\r\n0123456789abContent-Length: 2\r\n\r\n{}";
        assert_eq!(
            frames_with(input, 10),
            vec![Frame::TooLarge(12), body("{}")]
        );
    }

    #[test]
    fn an_endless_header_line_is_dropped_without_being_held() {
        let mut input = vec![b'x'; 3 * MAX_HEADER_LINE];
        input.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        assert_eq!(
            frames(&input),
            vec![bad("a header line longer than 8192 bytes"), body("{}")]
        );
    }

    #[test]
    fn the_input_may_end_anywhere() {
        for input in [
            &b"Content-Length: 5\r\n\r\n{}"[..],
            b"Content-Length: 5\r\n",
            b"Content-Le",
            b"Content-Length: 99\r\n\r\n",
        ] {
            assert_eq!(frames(input), vec![]);
        }
        assert_eq!(frames_with(b"Content-Length: 99\r\n\r\nabc", 10), vec![]);
    }
}
