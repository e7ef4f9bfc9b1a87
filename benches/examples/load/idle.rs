//! What an idle CPU does while a measurement runs. On a VM whose idle vCPUs halt at once (this
//! host's kernel sets `haltpoll.guest_halt_poll_ns=0`), every wake-up of an idle CPU goes
//! through the hypervisor, and at concurrency 1 that wake-up, paid twice per request, is most of
//! a flow for every server alike: it measures the host, not the server. Holding the kernel's CPU
//! latency request (PM QoS, `/dev/cpu_dma_latency`) at 0 makes the idle governor poll instead
//! of halting, as benchmark tuning tools do (pyperf's `system tune`, tuned's
//! latency-performance profile); the kernel drops the request when the file is closed, so
//! nothing outlives the process.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};

const DEVICE: &str = "/dev/cpu_dma_latency";

/// The kernel's CPU latency target in microseconds now (2000000000 when nobody asked for
/// one), or why it could not be read.
pub fn latency_target() -> Result<i32, String> {
    let mut buf = [0u8; 4];
    File::open(DEVICE)
        .and_then(|mut f| f.read_exact(&mut buf))
        .map_err(|e| format!("{DEVICE}: {e}"))?;
    Ok(i32::from_ne_bytes(buf))
}

/// A held request for a CPU latency of 0: idle CPUs poll until it is dropped.
pub struct PollIdle {
    _device: File,
}

impl PollIdle {
    /// Asks for a CPU latency of 0 and checks that the kernel now targets it. Needs root.
    pub fn hold() -> Result<Self, String> {
        let mut device = OpenOptions::new()
            .write(true)
            .open(DEVICE)
            .map_err(|e| format!("{DEVICE}: {e} (holding it needs root)"))?;
        device
            .write_all(&0i32.to_ne_bytes())
            .map_err(|e| format!("{DEVICE}: {e}"))?;
        match latency_target()? {
            0 => Ok(PollIdle { _device: device }),
            other => Err(format!(
                "{DEVICE}: asked for 0, the kernel targets {other} µs"
            )),
        }
    }
}
