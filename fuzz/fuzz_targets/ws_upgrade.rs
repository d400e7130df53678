//! Any bytes after a WebSocket upgrade: the frames tungstenite reads under the server's
//! configuration (16 KiB a message, checked while it is assembled), read to the end
//! without a panic, and no message longer than the limit ever comes out.
#![no_main]

use futures_util::StreamExt;
use libfuzzer_sys::fuzz_target;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

fuzz_target!(|data: &[u8]| {
    let limit = pawns::protocol::MAX_FRAME;
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let bytes = data.to_vec();
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = client.write_all(&bytes).await;
            let _ = client.shutdown().await;
            // Keep reading what the server answers (pongs, closes) so it never blocks.
            let mut sink = Vec::new();
            let _ = tokio::io::AsyncReadExt::read_to_end(&mut client, &mut sink).await;
        });
        let cfg = WebSocketConfig::default().max_message_size(Some(limit)).max_frame_size(Some(limit)).read_buffer_size(4096);
        let mut ws = WebSocketStream::from_raw_socket(server, Role::Server, Some(cfg)).await;
        while let Some(m) = ws.next().await {
            match m {
                Ok(Message::Text(t)) => assert!(t.len() <= limit),
                Ok(Message::Binary(b)) => assert!(b.len() <= limit),
                Ok(_) => {}
                Err(_) => break,
            }
        }
    });
});
