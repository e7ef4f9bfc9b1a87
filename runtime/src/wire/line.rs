//! Line-delimited JSON-RPC streams (stdio), shared by the stdio server and the stdio client:
//! reading one line bounded in length, and writing one message on its own line. Written over
//! `AsyncRead` and `AsyncWrite` alone, so a stdio server does not pay for Tokio's `io-util`.

use std::future::poll_fn;
use std::pin::Pin;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// One line read by [`LineReader::read_line`].
pub(crate) enum Line {
    /// The line, without its line ending.
    Fits,
    /// Longer than the limit: skipped up to its end, `buf` left empty.
    TooLong,
    /// End of input.
    End,
}

/// How much a [`LineReader`] asks its reader for at once (and keeps per stream): what Tokio's
/// `BufReader` holds. A longer line takes several reads into the caller's buffer.
const CHUNK: usize = 8 * 1024;

/// A reader of lines: `R` read in chunks into a buffer of its own.
pub(crate) struct LineReader<R> {
    reader: R,
    buf: Box<[u8]>,
    /// The unread part of `buf` is `buf[at..end]`.
    at: usize,
    end: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Lines of `reader`.
    pub(crate) fn new(reader: R) -> Self {
        LineReader {
            reader,
            buf: vec![0u8; CHUNK].into_boxed_slice(),
            at: 0,
            end: 0,
        }
    }

    /// The unread bytes, reading more when there are none; empty at end of input.
    async fn fill(&mut self) -> std::io::Result<&[u8]> {
        if self.at >= self.end {
            let LineReader { reader, buf, .. } = self;
            let n = poll_fn(|cx| {
                let mut out = ReadBuf::new(buf);
                Pin::new(&mut *reader)
                    .poll_read(cx, &mut out)
                    .map_ok(|()| out.filled().len())
            })
            .await?;
            (self.at, self.end) = (0, n);
        }
        Ok(&self.buf[self.at..self.end])
    }

    /// Read one line into `buf` (without `\n` or `\r\n`), keeping at most `max` bytes: a
    /// longer line is skipped to its end instead of being buffered whole.
    pub(crate) async fn read_line(
        &mut self,
        buf: &mut Vec<u8>,
        max: usize,
    ) -> std::io::Result<Line> {
        buf.clear();
        let (mut seen, mut fits) = (false, true);
        loop {
            let chunk = self.fill().await?;
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
            self.at += newline.map_or(chunk.len(), |i| i + 1);
            if newline.is_some() {
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
                return Ok(if fits { Line::Fits } else { Line::TooLong });
            }
        }
    }
}

/// Write `line` and a newline to `writer`, then flush: one message on a line of its own.
pub(crate) async fn write_line<W: AsyncWrite + Unpin>(
    writer: &mut W,
    line: &[u8],
) -> std::io::Result<()> {
    for mut part in [line, b"\n"] {
        while !part.is_empty() {
            let n = poll_fn(|cx| Pin::new(&mut *writer).poll_write(cx, part)).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            part = &part[n..];
        }
    }
    poll_fn(|cx| Pin::new(&mut *writer).poll_flush(cx)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out its input a few bytes at a time, so lines span reads.
    struct Trickle(Vec<u8>, usize);

    impl AsyncRead for Trickle {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            out: &mut ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            let Trickle(data, step) = &mut *self;
            let n = (*step).min(data.len()).min(out.remaining());
            out.put_slice(&data[..n]);
            data.drain(..n);
            std::task::Poll::Ready(Ok(()))
        }
    }

    async fn lines(input: &[u8], step: usize, max: usize) -> Vec<Option<String>> {
        let mut reader = LineReader::new(Trickle(input.to_vec(), step));
        let (mut out, mut buf) = (Vec::new(), Vec::new());
        loop {
            match reader.read_line(&mut buf, max).await.unwrap() {
                Line::Fits => out.push(Some(String::from_utf8(buf.clone()).unwrap())),
                Line::TooLong => out.push(None),
                Line::End => return out,
            }
        }
    }

    #[tokio::test]
    async fn lines_across_reads_with_limits_and_endings() {
        let input = b"{\"a\":1}\r\n\nlong line here\nlast";
        for step in [1, 3, 7, 1024] {
            let got = lines(input, step, 8).await;
            let want = vec![
                Some("{\"a\":1}".to_string()),
                Some(String::new()),
                None,
                Some("last".to_string()),
            ];
            assert_eq!(got, want, "step {step}");
        }
    }

    #[tokio::test]
    async fn write_line_ends_each_message_with_a_newline() {
        let mut out = Vec::new();
        write_line(&mut out, b"{}").await.unwrap();
        write_line(&mut out, b"[1]").await.unwrap();
        assert_eq!(out, b"{}\n[1]\n");
    }
}
