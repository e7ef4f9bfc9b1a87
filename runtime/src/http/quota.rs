//! Per-caller quotas at the HTTP edge: who a request counts against, how many requests each
//! caller has in flight, and how many connections each address holds. One caller filling its
//! share leaves the others theirs.

use crate::handler::Principal;
use crate::wire::lock;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Who a quota counts: the authenticated principal (issuer and subject), else the client's
/// address; `None` when neither is known (an application that mounts the router without
/// connection info and without authentication), which no per-caller quota applies to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum CallerKey {
    /// An authenticated caller, by its binding key.
    Principal(String),
    /// An anonymous caller, by its address.
    Address(IpAddr),
}

impl CallerKey {
    /// The key of a request from `principal` at `peer`.
    pub(crate) fn of(principal: Option<&Principal>, peer: Option<IpAddr>) -> Option<CallerKey> {
        match (principal, peer) {
            (Some(p), _) => Some(CallerKey::Principal(p.binding_key())),
            (None, Some(ip)) => Some(CallerKey::Address(ip)),
            (None, None) => None,
        }
    }
}

/// Requests in flight per caller.
#[derive(Default)]
pub(crate) struct Quotas {
    in_flight: Mutex<HashMap<CallerKey, usize>>,
}

/// One request counted in flight; it stops counting when dropped.
pub(crate) struct InFlight {
    quotas: Arc<Quotas>,
    key: CallerKey,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut map = lock(&self.quotas.in_flight);
        if let Some(n) = map.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.key);
            }
        }
    }
}

impl Quotas {
    /// Count a request of `key` in flight, unless it already has `max`.
    pub(crate) fn enter(self: &Arc<Self>, key: CallerKey, max: usize) -> Option<InFlight> {
        let mut map = lock(&self.in_flight);
        let n = map.entry(key.clone()).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(InFlight {
            quotas: self.clone(),
            key,
        })
    }
}

/// Connections open per client address, counted before a request is read: the listener's own
/// protection, for anonymous and authenticated callers alike (a token is only read with a
/// request, and a connection that never sends one still holds a slot until its header timeout).
#[derive(Default)]
pub(crate) struct Connections {
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One connection counted for its address; it stops counting when dropped.
pub(crate) struct Connection {
    connections: Arc<Connections>,
    address: IpAddr,
}

impl Drop for Connection {
    fn drop(&mut self) {
        let mut open = lock(&self.connections.open);
        if let Some(n) = open.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.address);
            }
        }
    }
}

impl Connections {
    /// Count a connection from `address`, unless it already holds `max`.
    pub(crate) fn open(self: &Arc<Self>, address: IpAddr, max: usize) -> Option<Connection> {
        let mut open = lock(&self.open);
        let n = open.entry(address).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(Connection {
            connections: self.clone(),
            address,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_caller_has_its_own_share() {
        let quotas = Arc::new(Quotas::default());
        let alice = CallerKey::Principal("alice".into());
        let bob = CallerKey::Principal("bob".into());
        let a1 = quotas.enter(alice.clone(), 2).unwrap();
        let _a2 = quotas.enter(alice.clone(), 2).unwrap();
        assert!(quotas.enter(alice.clone(), 2).is_none());
        assert!(quotas.enter(bob, 2).is_some());
        drop(a1);
        assert!(quotas.enter(alice, 2).is_some());
    }

    #[test]
    fn each_address_has_its_own_connections() {
        let connections = Arc::new(Connections::default());
        let (a, b): (IpAddr, IpAddr) = ("127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap());
        let first = connections.open(a, 2).unwrap();
        let _second = connections.open(a, 2).unwrap();
        assert!(connections.open(a, 2).is_none());
        assert!(connections.open(b, 2).is_some());
        drop(first);
        assert!(connections.open(a, 2).is_some());
        assert!(
            lock(&connections.open).get(&b).is_none(),
            "an address with none is forgotten"
        );
    }
}
