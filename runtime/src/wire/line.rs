//! Reading one line of a line-delimited JSON-RPC stream (stdio), bounded in length: shared by the
//! stdio server and the stdio client.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// One line read by [`read_line`].
pub(crate) enum Line {
    /// The line, without its line ending.
    Fits,
    /// Longer than the limit: skipped up to its end, `buf` left empty.
    TooLong,
    /// End of input.
    End,
}

/// Read one line into `buf` (without `\n` or `\r\n`), keeping at most `max` bytes: a longer
/// line is skipped to its end instead of being buffered whole.
pub(crate) async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let (mut seen, mut fits) = (false, true);
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            // End of input; a last line without a newline still counts.
            return Ok(match (seen, fits) {
                (false, _) => Line::End,
                (true, true) => Line::Fits,
                (true, false) => Line::TooLong,
            });
        }
        seen = true;
        let newline = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..newline.unwrap_or(chunk.len())];
        if fits && buf.len() + part.len() <= max {
            buf.extend_from_slice(part);
        } else if fits {
            fits = false;
            buf.clear();
        }
        let used = newline.map_or(chunk.len(), |i| i + 1);
        reader.consume(used);
        if newline.is_some() {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(if fits { Line::Fits } else { Line::TooLong });
        }
    }
}
