//! A server-sent events decoder that takes bytes in whatever pieces the network delivers them
//! (split mid-line or mid-character) and yields the `data` of each complete event.

/// Incremental SSE decoder: feed bytes, get complete events' data fields.
#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    line: Vec<u8>,
    data: Option<String>,
    /// Whether any `data:` field was ever seen (an empty stream is a server quirk we handle).
    pub(crate) saw_data: bool,
}

impl SseDecoder {
    /// Feeds a chunk; returns the data of every event it completed.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        for &byte in bytes {
            if byte == b'\n' {
                let mut line = std::mem::take(&mut self.line);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.take_line(&line, &mut events);
            } else {
                self.line.push(byte);
            }
        }
        events
    }

    /// Ends the stream: an event still pending without its blank line is delivered too.
    pub(crate) fn finish(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.take_line(&line, &mut events);
        }
        if let Some(data) = self.data.take() {
            events.push(data);
        }
        events
    }

    fn take_line(&mut self, line: &[u8], events: &mut Vec<String>) {
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                events.push(data);
            }
            return;
        }
        if line.starts_with(b":") {
            return; // a comment: keep-alive
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (text.as_ref(), ""),
        };
        if field == "data" {
            self.saw_data = true;
            match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            }
        }
        // `event`, `id` and `retry` carry nothing the chat protocols we speak need.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = "data: {\"a\":1}\n\n: keep-alive\r\ndata: {\"b\":\"é\"}\r\n\r\nevent: x\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n";

    fn expected() -> Vec<String> {
        vec![
            "{\"a\":1}".into(),
            "{\"b\":\"é\"}".into(),
            "line1\nline2".into(),
            "[DONE]".into(),
        ]
    }

    #[test]
    fn decodes_a_whole_stream() {
        let mut decoder = SseDecoder::default();
        let mut events = decoder.feed(STREAM.as_bytes());
        events.extend(decoder.finish());
        assert_eq!(events, expected());
    }

    #[test]
    fn decodes_the_same_stream_fed_one_byte_at_a_time() {
        let mut decoder = SseDecoder::default();
        let mut events = Vec::new();
        for byte in STREAM.as_bytes() {
            events.extend(decoder.feed(std::slice::from_ref(byte)));
        }
        events.extend(decoder.finish());
        assert_eq!(events, expected());
    }

    #[test]
    fn an_unterminated_last_event_is_still_delivered() {
        let mut decoder = SseDecoder::default();
        let mut events = decoder.feed(b"data: tail");
        events.extend(decoder.finish());
        assert_eq!(events, vec!["tail".to_string()]);
    }

    #[test]
    fn empty_body_is_noticed() {
        let mut decoder = SseDecoder::default();
        assert!(decoder.feed(b"").is_empty() && decoder.finish().is_empty());
        assert!(!decoder.saw_data);
    }
}
