//! Print a fresh `requestState` key entry for `MCP_STATE_KEYS`:
//! `cargo run -p oxmcp --example state-key -- 2` prints `2:<64 hex digits>`.
//!
//! Rotation: append the new entry (`1:...,2:...`, oldest first) on every instance first; the
//! newest key seals, every key of the ring opens. Once all instances run the new ring and the
//! state lifetime (five minutes by default) has passed, drop the old entry.

fn main() -> std::process::ExitCode {
    let id = match std::env::args().nth(1).map(|a| a.parse::<u8>()) {
        None => 1,
        Some(Ok(id)) => id,
        Some(Err(_)) => {
            eprintln!("usage: state-key [ID]   (ID: 0-255, default 1)");
            return std::process::ExitCode::from(2);
        }
    };
    match oxmcp::request_state::SealingKey::generate_entry(id) {
        Ok(entry) => {
            println!("{entry}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}
