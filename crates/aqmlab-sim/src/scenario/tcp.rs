//! `[tcp]` and a TCP group's `tcp` table: a named profile (docs/models/ns2.md §3,
//! docs/models/freebsd-2.2.md; the RFCs) with any of its fields overridden.

use super::reader::{
    boolean, choice, duration, integer, number_above, positive_duration, size, size_or_zero,
    Fields, Result, ScenarioError,
};
use crate::tcp::cc::cubic::CubicArithmetic;
use crate::tcp::cc::cubic_linux::{beta_param, bic_scale_param, MAX_BIC_SCALE};
use crate::tcp::cc::reno::RenoArithmetic;
use crate::tcp::cc::{Algorithm, CcConfig};
use crate::tcp::config::{
    DelAck, Halve, Handshake, LimitedTransmit, LossDetection, Pacing, PartialAckTimer,
    RecoveryCwnd, RecoveryWindow, RetryLimit, RtoStyle, SackAfterRto, SackRecovery, TcpConfig,
    TimeoutSsthresh, Variant, PROFILES,
};
use crate::tcp::route_cache::TIME_WAIT;
use crate::traffic::config::TrafficSpec;
use crate::units::{Size, Time};
use serde_json::Value;

/// The traffic groups as the resolved scenario writes them: each group's `tcp` table only as far as
/// it differs from the scenario's `[tcp]` (`base`), over which a table without `profile` is read
/// ([`parse_tcp`]), and left out when it does not differ. A group whose difference would not read
/// back as its configuration keeps its whole table, `profile` included, which is read on its own:
/// one of another profile, or one that leaves out a key `base` writes (an option that is off only
/// in the group). So 400 groups of the scenario's TCP cost no more than one, and `--set tcp.KEY`
/// on a resolved scenario reaches every group that does not set `KEY` itself, as in the file it
/// was resolved from.
pub fn groups_written(groups: &[TrafficSpec], base: &TcpConfig) -> Vec<Value> {
    let base_table = serde_json::to_value(base).expect("a TCP configuration always serialises");
    // Groups often share a configuration: each distinct one is written and checked once.
    let mut tables: Vec<(&TcpConfig, Option<Value>)> = Vec::new();
    let mut written = Vec::with_capacity(groups.len());
    for group in groups {
        let mut fields = serde_json::to_value(group).expect("a traffic group always serialises");
        if let (Some(tcp), Some(map)) = (group.kind.tcp(), fields.as_object_mut()) {
            let table = match tables.iter().find(|(seen, _)| *seen == tcp) {
                Some((_, table)) => table.clone(),
                None => {
                    let table = table_over(tcp, base, &base_table);
                    tables.push((tcp, table.clone()));
                    table
                }
            };
            match table {
                Some(table) => map.insert("tcp".into(), table),
                None => map.remove("tcp"),
            };
        }
        written.push(fields);
    }
    written
}

/// `tcp` as a table read over `base` (whose table is `base_table`): its keys that differ from
/// `base`'s, if they read back as `tcp` (`None` if there are none), or else its whole table.
fn table_over(tcp: &TcpConfig, base: &TcpConfig, base_table: &Value) -> Option<Value> {
    let whole = serde_json::to_value(tcp).expect("a TCP configuration always serialises");
    let (Some(fields), Some(base_fields)) = (whole.as_object(), base_table.as_object()) else {
        return Some(whole);
    };
    if tcp.profile == base.profile && base_fields.keys().all(|key| fields.contains_key(key)) {
        let differ: serde_json::Map<String, Value> = (fields.iter())
            .filter(|(key, value)| base_fields.get(*key) != Some(*value))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let same = differ.is_empty();
        let table = Value::Object(differ);
        if parse_tcp(&table, "tcp", base).as_ref() == Ok(tcp) {
            return (!same).then_some(table);
        }
    }
    Some(whole)
}

/// Read a TCP table over `base`: `profile` (if given) replaces the base, then each key overrides.
pub fn parse_tcp(v: &Value, path: &str, base: &TcpConfig) -> Result<TcpConfig> {
    let mut f = Fields::of(v, path)?;
    let mut c = match f.opt("profile", choice(&PROFILES))? {
        Some(name) => TcpConfig::profile(name).expect("PROFILES lists only known profiles"),
        None => base.clone(),
    };
    c.variant = f.or("variant", c.variant, |v, p| {
        Ok(match choice(&["reno", "newreno", "sack"])(v, p)? {
            "reno" => Variant::Reno,
            "newreno" => Variant::NewReno,
            _ => Variant::Sack,
        })
    })?;
    c.cc.set(parse_cc(&mut f, c.cc.value)?);
    c.mss = f.or("mss", c.mss, size)?;
    c.header = f.or("header", c.header, size_or_zero)?;
    c.rwnd = f.or("rwnd", c.rwnd, size)?;
    c.buffer_roundup = f.or("buffer_roundup", c.buffer_roundup, boolean)?;
    c.initial_window = f.or(
        "initial_window",
        u64::from(c.initial_window),
        integer(1, 1000),
    )? as u32;
    c.handshake_ack_cwnd = f.or("handshake_ack_cwnd", c.handshake_ack_cwnd, boolean)?;
    c.handshake = f.or("handshake", c.handshake, |v, p| {
        Ok(match choice(&["three-way", "ns2-syn", "none"])(v, p)? {
            "three-way" => Handshake::ThreeWay,
            "ns2-syn" => Handshake::Ns2Syn,
            _ => Handshake::None,
        })
    })?;
    c.rto = f.or("rto", c.rto, |v, p| {
        Ok(
            match choice(&[
                "bsd",
                "freebsd-2.2",
                "ns2-old",
                "ns2-rfc2988",
                "rfc6298",
                "linux",
            ])(v, p)?
            {
                "bsd" => RtoStyle::Bsd,
                "freebsd-2.2" => RtoStyle::FreeBsd22,
                "ns2-old" => RtoStyle::Ns2Old,
                "ns2-rfc2988" => RtoStyle::Ns2Rfc2988,
                "rfc6298" => RtoStyle::Rfc6298,
                _ => RtoStyle::Linux,
            },
        )
    })?;
    c.tick = f.or("tick", c.tick, positive_duration)?;
    c.initial_rto = f.or("initial_rto", c.initial_rto, positive_duration)?;
    c.min_rto = f.or("min_rto", c.min_rto, duration)?;
    c.max_rto = f.or("max_rto", c.max_rto, positive_duration)?;
    c.max_backoff = f.or("max_backoff", u64::from(c.max_backoff), integer(1, 1 << 20))? as u32;
    // true: FreeBSD 2.2's TIME_WAIT (or the one set already); a duration: that long.
    let time_wait = c.route_cache.unwrap_or(TIME_WAIT);
    c.route_cache = f.or("route_cache", c.route_cache, |v, p| match v.as_bool() {
        Some(on) => Ok(on.then_some(time_wait)),
        None => positive_duration(v, p).map(Some).map_err(|e| {
            ScenarioError::new(
                e.path,
                format!(
                    "expected true, false or the TIME_WAIT after which the end that closed \
                     first updates the cache, like \"60s\": {}",
                    e.message
                ),
            )
        }),
    })?;
    c.delack = f.or("delack", c.delack, |v, p| {
        Ok(
            match choice(&[
                "off",
                "one-shot",
                "heartbeat",
                "window-update",
                "ns2-fulltcp",
            ])(v, p)?
            {
                "off" => DelAck::Off,
                "one-shot" => DelAck::OneShot,
                "heartbeat" => DelAck::Heartbeat,
                "window-update" => DelAck::WindowUpdate,
                _ => DelAck::Ns2FullTcp,
            },
        )
    })?;
    c.delack_time = f.or("delack_time", c.delack_time, positive_duration)?;
    c.fin_piggyback = f.or("fin_piggyback", c.fin_piggyback, boolean)?;
    c.send_chunk = f.or("send_chunk", c.send_chunk, |v, p| match v {
        Value::String(s) if s.trim() == "0" => Ok(Size(0)),
        Value::Number(n) if n.as_u64() == Some(0) => Ok(Size(0)),
        Value::String(_) => size_or_zero(v, p),
        _ => Err(ScenarioError::new(
            p,
            format!("expected a size like \"2048B\", or 0 for whole writes, got {v}"),
        )),
    })?;
    c.dupthresh = f.or("dupthresh", u64::from(c.dupthresh), integer(1, 1000))? as u32;
    c.halve = f.or("halve", c.halve, |v, p| {
        Ok(match choice(&["window", "flight-size"])(v, p)? {
            "window" => Halve::Window,
            _ => Halve::FlightSize,
        })
    })?;
    c.precise_reduce = f.or("precise_reduce", c.precise_reduce, boolean)?;
    c.nagle = f.or("nagle", c.nagle, boolean)?;
    c.recovery_window = f.or("recovery_window", c.recovery_window, |v, p| {
        Ok(match choice(&["rfc", "ns2"])(v, p)? {
            "rfc" => RecoveryWindow::Rfc,
            _ => RecoveryWindow::Ns2,
        })
    })?;
    c.sack_recovery = f.or("sack_recovery", c.sack_recovery, |v, p| {
        Ok(match choice(&["rfc6675", "ns2"])(v, p)? {
            "rfc6675" => SackRecovery::Rfc6675,
            _ => SackRecovery::Ns2,
        })
    })?;
    let recovery_cwnd = f.opt("recovery_cwnd", |v, p| {
        Ok(match choice(&["standard", "prr"])(v, p)? {
            "standard" => RecoveryCwnd::Standard,
            _ => RecoveryCwnd::Prr,
        })
    })?;
    if let Some(r) = recovery_cwnd {
        c.recovery_cwnd.set(r);
    }
    c.pacing = f.or("pacing", c.pacing, |v, p| {
        Ok(match choice(&["off", "linux"])(v, p)? {
            "off" => Pacing::Off,
            _ if c.pacing.is_on() => c.pacing,
            _ => Pacing::LINUX,
        })
    })?;
    for (key, ss) in [("pacing_ss_ratio", true), ("pacing_ca_ratio", false)] {
        let Some(ratio) = f.opt(key, integer(0, 1000))? else {
            continue;
        };
        let Pacing::Linux { ss_ratio, ca_ratio } = &mut c.pacing else {
            return Err(ScenarioError::new(
                f.key_path(key),
                "a ratio of Linux's pacing: expected it with pacing = \"linux\" (pacing is \"off\")",
            ));
        };
        *(if ss { ss_ratio } else { ca_ratio }) = ratio as u32;
    }
    let loss_detection = f.opt("loss_detection", |v, p| {
        Ok(match choice(&["dupack", "rack-tlp"])(v, p)? {
            "dupack" => LossDetection::DupAck,
            _ => LossDetection::RackTlp,
        })
    })?;
    if let Some(l) = loss_detection {
        c.loss_detection.set(l);
    }
    c.limited_transmit = f.or("limited_transmit", c.limited_transmit, |v, p| match v {
        Value::Bool(true) => Ok(LimitedTransmit::Rfc3042),
        Value::Bool(false) => Ok(LimitedTransmit::Off),
        _ => Ok(
            match choice(&["rfc3042", "ns2"])(v, p).map_err(|_| {
                ScenarioError::new(
                    p,
                    format!("expected true (RFC 3042), false, \"rfc3042\" or \"ns2\", got {v}"),
                )
            })? {
                "rfc3042" => LimitedTransmit::Rfc3042,
                _ => LimitedTransmit::Ns2,
            },
        ),
    })?;
    c.recover_guard = f.or("recover_guard", c.recover_guard, boolean)?;
    c.partial_ack_timer = f.or("partial_ack_timer", c.partial_ack_timer, |v, p| {
        Ok(match choice(&["first", "every"])(v, p)? {
            "first" => PartialAckTimer::First,
            _ => PartialAckTimer::Every,
        })
    })?;
    c.idle_restart = f.or("idle_restart", c.idle_restart, boolean)?;
    c.ecn = f.or("ecn", c.ecn, boolean)?;
    c.ecn_backoff = f.or("ecn_backoff", c.ecn_backoff, boolean)?;
    c.overhead = f.or("overhead", c.overhead, duration)?;
    c.partial_window_deflation = f.or(
        "partial_window_deflation",
        c.partial_window_deflation,
        boolean,
    )?;
    c.recovery_exit_deflate_at = f.or(
        "recovery_exit_deflate_at",
        c.recovery_exit_deflate_at,
        |v, p| match v.as_str() {
            Some("always") => Ok(None),
            _ => integer(1, 1000)(v, p).map(|n| Some(n as u32)).map_err(|_| {
                ScenarioError::new(
                    p,
                    format!("expected a number of duplicate ACKs from 1 to 1000, or \"always\", got {v}"),
                )
            }),
        },
    )?;
    c.syn_loss_restart = f.or("syn_loss_restart", c.syn_loss_restart, boolean)?;
    c.connect_timeout = f.or("connect_timeout", c.connect_timeout, |v, p| {
        match v.as_str() {
            Some("never") => Ok(None),
            _ => positive_duration(v, p).map(Some),
        }
    })?;
    c.max_retries = f.or("max_retries", c.max_retries, |v, p| match v.as_str() {
        Some("never") => Ok(RetryLimit::Never),
        _ => integer(0, 1000)(v, p)
            .map(|n| RetryLimit::After(n as u32))
            .map_err(|_| {
                ScenarioError::new(p, "expected a whole number of retransmissions or \"never\"")
            }),
    })?;
    let mut t = c.timeout.value;
    t.sack_after_rto = f.or("sack_after_rto", t.sack_after_rto, |v, p| {
        Ok(match choice(&["keep", "discard"])(v, p)? {
            "keep" => SackAfterRto::Keep,
            _ => SackAfterRto::Discard,
        })
    })?;
    t.timestamps = f.or("timestamps", t.timestamps, boolean)?;
    t.ssthresh = f.or("timeout_ssthresh", t.ssthresh, |v, p| {
        Ok(match choice(&["every", "once"])(v, p)? {
            "every" => TimeoutSsthresh::Every,
            _ => TimeoutSsthresh::Once,
        })
    })?;
    c.timeout.set(t);
    f.finish()?;
    give_way(&mut c, recovery_cwnd.is_some(), loss_detection.is_some());
    validate(&c, path)?;
    Ok(c)
}

/// A profile's PRR and RACK-TLP give way, where this table did not name them, to the keys that
/// rule them out: as Linux, whose every connection has them (`tcp_recovery = 1`), finds a
/// connection's losses without SACK by duplicate ACKs. Named in the table, or not the profile's
/// own, they are checked by [`validate`] instead.
fn give_way(c: &mut TcpConfig, named_prr: bool, named_rack: bool) {
    let Some(profile) = TcpConfig::profile(c.profile) else {
        return;
    };
    if !named_prr && c.recovery_cwnd == profile.recovery_cwnd && prr_conflict(c).is_some() {
        c.recovery_cwnd.set(RecoveryCwnd::Standard);
    }
    if !named_rack && c.loss_detection == profile.loss_detection && rack_conflict(c).is_some() {
        c.loss_detection.set(LossDetection::DupAck);
    }
}

/// What rules out PRR, if anything: PRR sets the window of the whole recovery and ends it at
/// ssthresh, so ns-2's and BSD's recovery windows have nothing left to decide.
fn prr_conflict(c: &TcpConfig) -> Option<String> {
    if *c.recovery_cwnd != RecoveryCwnd::Prr {
        None
    } else if c.recovery_window != RecoveryWindow::Rfc {
        Some(format!(
            "recovery_window = \"rfc\" (recovery_window is {})",
            json_name(&c.recovery_window)
        ))
    } else if c.variant == Variant::Sack && c.sack_recovery != SackRecovery::Rfc6675 {
        Some(format!(
            "sack_recovery = \"rfc6675\" (sack_recovery is {})",
            json_name(&c.sack_recovery)
        ))
    } else if c.precise_reduce {
        Some("precise_reduce = false (precise_reduce is true)".to_string())
    } else {
        c.recovery_exit_deflate_at.map(|n| {
            format!("recovery_exit_deflate_at = \"always\" (recovery_exit_deflate_at is {n})")
        })
    }
}

/// What rules out RACK-TLP, if anything: RACK reads the SACK scoreboard (RFC 8985 §4: SACK is
/// required), Linux's (RFC 6675 recovery with RACK's marks), and after a timeout the scoreboard
/// Linux keeps.
fn rack_conflict(c: &TcpConfig) -> Option<String> {
    if *c.loss_detection != LossDetection::RackTlp {
        return None;
    }
    linux_sack_conflict(c).or_else(|| {
        (c.timeout.sack_after_rto != SackAfterRto::Keep)
            .then(|| "sack_after_rto = \"keep\" (sack_after_rto is \"discard\")".to_string())
    })
}

/// What keeps this table from Linux's SACK recovery (SACK, RFC 6675 here), if anything: what
/// RACK-TLP and BBR are modelled on.
fn linux_sack_conflict(c: &TcpConfig) -> Option<String> {
    if c.variant != Variant::Sack {
        Some(format!(
            "variant = \"sack\" (variant is {})",
            json_name(&c.variant)
        ))
    } else if c.sack_recovery != SackRecovery::Rfc6675 {
        Some(format!(
            "sack_recovery = \"rfc6675\" (sack_recovery is {})",
            json_name(&c.sack_recovery)
        ))
    } else {
        None
    }
}

/// The congestion-control keys over `cc`.
fn parse_cc(f: &mut Fields, cc: CcConfig) -> Result<CcConfig> {
    let mut c = cc;
    c.algorithm = f.or("congestion_control", c.algorithm, |v, p| {
        Ok(match choice(&["reno", "cubic", "bbr"])(v, p)? {
            "reno" => Algorithm::Reno,
            "cubic" => Algorithm::Cubic,
            _ => Algorithm::Bbr,
        })
    })?;
    c.hystart = f.or("hystart", c.hystart, boolean)?;
    c.cubic.c = f.or("cubic_c", c.cubic.c, number_above(0.0))?;
    c.cubic.beta = f.or("cubic_beta", c.cubic.beta, |v, p| match v.as_f64() {
        Some(b) if b > 0.0 && b < 1.0 => Ok(b),
        _ => Err(ScenarioError::new(
            p,
            format!("expected a number between 0 and 1 (exclusive), got {v}"),
        )),
    })?;
    c.cubic.fast_convergence = f.or("fast_convergence", c.cubic.fast_convergence, boolean)?;
    c.cubic.unknown_wmax_floor = f.or(
        "cubic_unknown_wmax_floor",
        c.cubic.unknown_wmax_floor,
        boolean,
    )?;
    c.cubic.arithmetic = f.or("cubic_arithmetic", c.cubic.arithmetic, |v, p| {
        Ok(match choice(&["linux", "rfc9438"])(v, p)? {
            "linux" => CubicArithmetic::Linux,
            _ => CubicArithmetic::Rfc9438,
        })
    })?;
    c.reno = f.or("reno_arithmetic", c.reno, |v, p| {
        Ok(match choice(&["linux", "rfc5681"])(v, p)? {
            "linux" => RenoArithmetic::Linux,
            _ => RenoArithmetic::Rfc5681,
        })
    })?;
    Ok(c)
}

/// A value as the resolved scenario writes it (`"sack"`).
fn json_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn validate(c: &TcpConfig, path: &str) -> Result<()> {
    let at = |key: &str| super::reader::join(path, key);
    if c.mss.bytes() > 65_495 {
        return Err(ScenarioError::new(
            at("mss"),
            format!("expected at most 65495B, got \"{}\"", c.mss),
        ));
    }
    // A data packet is `mss + header` IP bytes, and an IP packet is at most 65535 B (its 16-bit
    // total length, RFC 791).
    let max_header = 65_535 - c.mss.bytes();
    if c.header.bytes() > max_header {
        return Err(ScenarioError::new(
            at("header"),
            format!(
                "expected 0B to {max_header}B (an IP packet, mss \"{}\" + header, is at most \
                 65535B), got \"{}\"",
                c.mss, c.header
            ),
        ));
    }
    if c.recovery_window == RecoveryWindow::Ns2 && c.recovery_exit_deflate_at.is_some() {
        return Err(ScenarioError::new(
            at("recovery_window"),
            "\"ns2\" keeps the halved window when recovery ends, but recovery_exit_deflate_at \
             (BSD's exit) is set: give recovery_exit_deflate_at = \"always\", or \
             recovery_window = \"rfc\""
                .to_string(),
        ));
    }
    if let Some(other) = prr_conflict(c) {
        return Err(ScenarioError::new(
            at("recovery_cwnd"),
            format!(
                "\"prr\" (RFC 6937 as Linux does it) sets the window of the whole recovery: \
                 expected {other}"
            ),
        ));
    }
    if let Some(other) = rack_conflict(c) {
        return Err(ScenarioError::new(
            at("loss_detection"),
            format!(
                "\"rack-tlp\" (RFC 8985 as Linux has it) needs SACK and Linux's SACK \
                 recovery: expected {other}"
            ),
        ));
    }
    if c.pacing.is_on() && c.overhead > Time::ZERO {
        // Both hold segments on the send timer.
        return Err(ScenarioError::new(
            at("pacing"),
            format!(
                "\"linux\" paces on the send timer, which ns-2's overhead would hold too: \
                 expected overhead = 0 with it (overhead is \"{}\")",
                c.overhead
            ),
        ));
    }
    if c.route_cache.is_some() && c.rto != RtoStyle::FreeBsd22 {
        return Err(ScenarioError::new(
            at("route_cache"),
            format!(
                "the per-host RTT cache is FreeBSD 2.2's: expected rto = \"freebsd-2.2\" with \
                 it, or route_cache = false (rto is {})",
                serde_json::to_string(&c.rto).unwrap_or_default()
            ),
        ));
    }
    if c.cc.algorithm == Algorithm::Bbr {
        // BBR is modelled as Linux runs it: on SACK recovery (RFC 6675 here), pacing its sender
        // on the send timer (which ns-2's `overhead` would otherwise hold).
        let other = linux_sack_conflict(c).or_else(|| {
            (c.overhead > Time::ZERO)
                .then(|| format!("overhead = 0 (overhead is \"{}\")", c.overhead))
        });
        if let Some(other) = other {
            return Err(ScenarioError::new(
                at("congestion_control"),
                format!(
                    "\"bbr\" is modelled as Linux runs it, with SACK recovery and its own \
                     pacing: expected {other}"
                ),
            ));
        }
    }
    if c.cc.algorithm == Algorithm::Cubic && c.cc.cubic.arithmetic == CubicArithmetic::Linux {
        // Linux holds β and C as integer module parameters (tcp_cubic.c `beta`, `bic_scale`).
        let beta = beta_param(c.cc.cubic.beta);
        if !(1.0..=1023.0).contains(&beta) {
            return Err(ScenarioError::new(
                at("cubic_beta"),
                format!(
                    "cubic_arithmetic = \"linux\" holds β in 1024ths (tcp_cubic.c `beta`): \
                     expected 0.0005 to 0.999, got {}",
                    c.cc.cubic.beta
                ),
            ));
        }
        let scale = bic_scale_param(c.cc.cubic.c);
        if !(1.0..=MAX_BIC_SCALE).contains(&scale) {
            return Err(ScenarioError::new(
                at("cubic_c"),
                format!(
                    "cubic_arithmetic = \"linux\" holds C as bic_scale = C·1024/10, a whole \
                     number (tcp_cubic.c): expected 0.005 to 4e6, got {}",
                    c.cc.cubic.c
                ),
            ));
        }
    }
    if c.rwnd < c.mss {
        return Err(ScenarioError::new(
            at("rwnd"),
            format!(
                "expected a window of at least one segment (mss \"{}\"), got \"{}\"",
                c.mss, c.rwnd
            ),
        ));
    }
    if c.nagle && c.send_chunk.bytes() > 0 {
        return Err(ScenarioError::new(
            at("nagle"),
            format!(
                "ns-2 FullTcp's Nagle rule and BSD's (send_chunk \"{}\") do not combine: \
                 expected nagle = false with a send_chunk, or send_chunk = 0",
                c.send_chunk
            ),
        ));
    }
    if c.send_chunk.bytes() > 1 << 30 {
        return Err(ScenarioError::new(
            at("send_chunk"),
            format!("expected at most 1GiB, got \"{}\"", c.send_chunk),
        ));
    }
    if c.min_rto > c.max_rto {
        return Err(ScenarioError::new(
            at("min_rto"),
            format!(
                "expected min_rto ≤ max_rto (\"{}\"), got \"{}\"",
                c.max_rto, c.min_rto
            ),
        ));
    }
    if c.rto.is_bsd() && (c.initial_rto.0 % c.tick.0 != 0 || c.min_rto.0 % c.tick.0 != 0) {
        return Err(ScenarioError::new(
            at("tick"),
            "expected the bsd timer's initial_rto and min_rto to be whole ticks",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Time;
    use serde_json::json;

    /// No profile writes `key` into its resolved table (so that their hashes stay as they were),
    /// and each holds the default `holds` checks.
    /// Every profile but `linux` holds `classic` and leaves `key` out of the resolved scenario;
    /// `linux` writes it, as `linux_value`.
    fn only_linux_lists(key: &str, linux_value: &str, classic: impl Fn(&TcpConfig) -> bool) {
        for name in PROFILES {
            let p = TcpConfig::profile(name).unwrap();
            let written = serde_json::to_value(&p).unwrap();
            if name == "linux" {
                assert_eq!(written[key], linux_value);
            } else {
                assert!(classic(&p) && written.get(key).is_none(), "{name}");
            }
        }
    }

    #[test]
    fn the_linux_profiles_prr_and_rack_tlp_give_way_to_keys_that_rule_them_out() {
        let rfc = TcpConfig::profile("rfc").unwrap();
        let read = |v: Value| parse_tcp(&v, "tcp", &rfc).unwrap();
        let linux = read(json!({"profile": "linux"}));
        assert_eq!(*linux.recovery_cwnd, RecoveryCwnd::Prr);
        assert_eq!(*linux.loss_detection, LossDetection::RackTlp);
        // Without SACK, Linux finds losses by duplicate ACKs; PRR stays (NewReno's pipe).
        let newreno = read(json!({"profile": "linux", "variant": "newreno"}));
        assert_eq!(*newreno.loss_detection, LossDetection::DupAck);
        assert_eq!(*newreno.recovery_cwnd, RecoveryCwnd::Prr);
        let discard = read(json!({"profile": "linux", "sack_after_rto": "discard"}));
        assert_eq!(*discard.loss_detection, LossDetection::DupAck);
        let ns2_window = read(json!({"profile": "linux", "recovery_window": "ns2"}));
        assert_eq!(*ns2_window.recovery_cwnd, RecoveryCwnd::Standard);
        // A group's table over the linux scenario's gives way the same.
        let group = parse_tcp(&json!({"variant": "newreno"}), "traffic[0].tcp", &linux).unwrap();
        assert_eq!(group, newreno);
        // What gave way reads back the same from the resolved scenario.
        for c in [&newreno, &discard, &ns2_window] {
            let written = serde_json::to_value(c).unwrap();
            assert_eq!(&read(written), c);
        }
        // Named in the table, they are refused instead (below, and the PRR test above).
        let named = json!({"profile": "linux", "variant": "newreno", "loss_detection": "rack-tlp"});
        assert_eq!(
            parse_tcp(&named, "tcp", &rfc).unwrap_err().path,
            "tcp.loss_detection"
        );
    }

    fn no_profile_lists(key: &str, holds: impl Fn(&TcpConfig) -> bool) {
        for name in PROFILES {
            let p = TcpConfig::profile(name).unwrap();
            assert!(holds(&p), "{name}");
            assert!(
                serde_json::to_value(&p).unwrap().get(key).is_none(),
                "{name}"
            );
        }
    }

    /// `keys` over `base`, with each case's extra keys, is refused at `tcp.{at}` in one line that
    /// says what the case says.
    fn refused(base: &TcpConfig, keys: Value, at: &str, cases: &[(Value, &str)]) {
        for (extra, says) in cases {
            let mut v = keys.clone();
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let e = parse_tcp(&v, "tcp", base).unwrap_err();
            assert_eq!(e.path, format!("tcp.{at}"), "{extra}");
            assert!(e.message.contains(says), "{}", e.message);
            assert!(!e.message.contains('\n'), "one line: {}", e.message);
        }
    }

    #[test]
    fn a_profile_then_overrides() {
        let base = TcpConfig::profile("rfc").unwrap();
        let c = parse_tcp(
            &json!({"profile": "freebsd-2.2", "variant": "newreno", "ecn": true}),
            "tcp",
            &base,
        )
        .unwrap();
        assert_eq!(c.profile, "freebsd-2.2");
        assert_eq!(c.variant, Variant::NewReno);
        assert!(c.ecn);
        assert_eq!(c.tick, crate::units::Time::from_millis(500));
        let same = parse_tcp(&json!({}), "tcp", &base).unwrap();
        assert_eq!(same, base);
    }

    #[test]
    fn bad_values_name_their_keys() {
        let base = TcpConfig::profile("rfc").unwrap();
        let err = |v: Value| parse_tcp(&v, "tcp", &base).unwrap_err().path;
        assert_eq!(err(json!({"profile": "win95"})), "tcp.profile");
        assert_eq!(err(json!({"variant": "vegas"})), "tcp.variant");
        assert_eq!(err(json!({"rwnd": "100B"})), "tcp.rwnd");
        assert_eq!(err(json!({"min_rto": "2min"})), "tcp.min_rto");
        assert_eq!(err(json!({"route_cache": "soon"})), "tcp.route_cache");
        // The cache is FreeBSD 2.2's: not with another timer.
        assert_eq!(err(json!({"route_cache": true})), "tcp.route_cache");
        let bsd = TcpConfig::profile("freebsd-2.2").unwrap();
        let parse = |v: Value| parse_tcp(&v, "tcp", &bsd);
        assert_eq!(
            parse(json!({"rto": "bsd"})).unwrap_err().path,
            "tcp.route_cache"
        );
        let off = parse(json!({"rto": "bsd", "route_cache": false})).unwrap();
        assert_eq!(off.route_cache, None);
        let wait = parse(json!({"route_cache": "2s"})).unwrap();
        assert_eq!(wait.route_cache, Some(Time::from_secs(2)));
        assert_eq!(err(json!({"max_retries": -1})), "tcp.max_retries");
        assert_eq!(err(json!({"nagle": "yes"})), "tcp.nagle");
        let both = parse(json!({"nagle": true})).unwrap_err();
        assert_eq!(both.path, "tcp.nagle");
        assert!(both.message.contains("send_chunk"), "{}", both.message);
        assert_eq!(err(json!({"mss": "1MB"})), "tcp.mss");
        // 4GiB does not fit the 32-bit packet size (it would wrap to 0).
        assert_eq!(err(json!({"header": "4GiB"})), "tcp.header");
        assert_eq!(
            err(json!({"mss": "1460B", "header": "64076B"})),
            "tcp.header"
        );
        let tcp = json!({"mss": "1460B", "header": "64075B"});
        let c = parse_tcp(&tcp, "tcp", &TcpConfig::profile("rfc").unwrap()).unwrap();
        assert_eq!(c.wire_size(1460), 65_535);
        assert_eq!(err(json!({"cwnd": 3})), "tcp.cwnd");
        assert_eq!(err(json!({"delack": "sometimes"})), "tcp.delack");
        assert_eq!(err(json!({"fin_piggyback": "yes"})), "tcp.fin_piggyback");
        assert_eq!(err(json!({"buffer_roundup": 1})), "tcp.buffer_roundup");
        assert_eq!(err(json!({"send_chunk": 2048})), "tcp.send_chunk");
        assert_eq!(err(json!({"send_chunk": "2k"})), "tcp.send_chunk");
        assert_eq!(err(json!({"send_chunk": "-1B"})), "tcp.send_chunk");
        assert_eq!(err(json!({"send_chunk": "2GiB"})), "tcp.send_chunk");
        assert_eq!(
            err(json!({"recovery_exit_deflate_at": 0})),
            "tcp.recovery_exit_deflate_at"
        );
        assert_eq!(
            err(json!({"recovery_exit_deflate_at": "never"})),
            "tcp.recovery_exit_deflate_at"
        );
        assert_eq!(
            err(json!({"congestion_control": "vegas"})),
            "tcp.congestion_control"
        );
        assert_eq!(
            err(json!({"congestion_control": 1})),
            "tcp.congestion_control"
        );
        assert_eq!(err(json!({"hystart": "yes"})), "tcp.hystart");
        assert_eq!(err(json!({"cubic_c": 0})), "tcp.cubic_c");
        assert_eq!(err(json!({"cubic_c": "0.4"})), "tcp.cubic_c");
        assert_eq!(err(json!({"cubic_beta": 1.0})), "tcp.cubic_beta");
        assert_eq!(err(json!({"cubic_beta": 0})), "tcp.cubic_beta");
        assert_eq!(err(json!({"fast_convergence": 1})), "tcp.fast_convergence");
        assert_eq!(
            err(json!({"cubic_unknown_wmax_floor": "on"})),
            "tcp.cubic_unknown_wmax_floor"
        );
        assert_eq!(
            err(json!({"cubic_arithmetic": "bsd"})),
            "tcp.cubic_arithmetic"
        );
        assert_eq!(
            err(json!({"cubic_arithmetic": true})),
            "tcp.cubic_arithmetic"
        );
        // Linux's arithmetic holds β in 1024ths and C as bic_scale = C·1024/10, whole numbers
        // of at least 1: beyond that the key is refused (with CUBIC only).
        let linux = |v: Value| {
            let mut t = json!({"profile": "linux"});
            t.as_object_mut()
                .unwrap()
                .extend(v.as_object().unwrap().clone());
            parse_tcp(&t, "tcp", &base)
        };
        for (v, key) in [
            (json!({"cubic_beta": 0.0001}), "tcp.cubic_beta"),
            (json!({"cubic_beta": 0.9999}), "tcp.cubic_beta"),
            (json!({"cubic_c": 0.004}), "tcp.cubic_c"),
            (json!({"cubic_c": 1e7}), "tcp.cubic_c"),
        ] {
            assert_eq!(linux(v).unwrap_err().path, key);
        }
        assert!(linux(json!({"cubic_c": 0.005, "cubic_beta": 0.999})).is_ok());
        assert!(linux(json!({"cubic_c": 0.004, "cubic_arithmetic": "rfc9438"})).is_ok());
        assert!(linux(json!({"cubic_c": 0.004, "congestion_control": "reno"})).is_ok());
        assert_eq!(
            err(json!({"sack_after_rto": "forget"})),
            "tcp.sack_after_rto"
        );
        assert_eq!(err(json!({"timestamps": 1})), "tcp.timestamps");
    }

    #[test]
    fn timeout_keys_and_their_resolved_form() {
        let rfc = TcpConfig::profile("rfc").unwrap();
        let linux = parse_tcp(&json!({"profile": "linux"}), "tcp", &rfc).unwrap();
        assert_eq!(linux.timeout.sack_after_rto, SackAfterRto::Keep);
        assert!(linux.timeout.timestamps && linux.cc.cubic.unknown_wmax_floor);
        // Turned off on linux, they are written, so that they read back off.
        let off = parse_tcp(
            &json!({"sack_after_rto": "discard", "timestamps": false,
                    "cubic_unknown_wmax_floor": false}),
            "tcp",
            &linux,
        )
        .unwrap();
        let written = serde_json::to_value(&off).unwrap();
        assert_eq!(written["sack_after_rto"], "discard");
        assert_eq!(written["timestamps"], false);
        assert_eq!(written["cubic_unknown_wmax_floor"], false);
        assert_eq!(parse_tcp(&written, "tcp", &rfc).unwrap(), off);
        // The older profiles' resolved tables have no such keys (their hashes are unchanged),
        // unless a scenario sets one.
        let ns2 = TcpConfig::profile("ns2-2003").unwrap();
        let written = serde_json::to_value(&ns2).unwrap();
        assert!(written.get("sack_after_rto").is_none() && written.get("timestamps").is_none());
        assert!(written.get("timeout_ssthresh").is_none());
        let on = parse_tcp(&json!({"timestamps": true}), "tcp", &ns2).unwrap();
        let written = serde_json::to_value(&on).unwrap();
        assert_eq!(written["sack_after_rto"], "discard");
        assert_eq!(written["timestamps"], true);
        assert_eq!(written["timeout_ssthresh"], "every");
        // rfc holds ssthresh on a repeated timeout (RFC 5681 §3.1), so it lists the keys.
        assert_eq!(
            serde_json::to_value(&rfc).unwrap()["timeout_ssthresh"],
            "once"
        );
    }

    #[test]
    fn congestion_control_keys_and_the_linux_profile() {
        let base = TcpConfig::profile("rfc").unwrap();
        let c = parse_tcp(
            &json!({"congestion_control": "cubic", "cubic_beta": 0.8, "hystart": true}),
            "tcp",
            &base,
        )
        .unwrap();
        assert_eq!(c.cc.algorithm, Algorithm::Cubic);
        assert!(c.cc.hystart && c.cc.cubic.fast_convergence);
        assert_eq!((c.cc.cubic.c, c.cc.cubic.beta), (0.4, 0.8));
        assert_eq!(c.cc.cubic.arithmetic, CubicArithmetic::Rfc9438);
        let linux = parse_tcp(&json!({"profile": "linux"}), "tcp", &base).unwrap();
        assert_eq!(linux.cc.algorithm, Algorithm::Cubic);
        assert_eq!(linux.cc.cubic.arithmetic, CubicArithmetic::Linux);
        let written = serde_json::to_value(&linux).unwrap();
        assert_eq!(written["cubic_arithmetic"], "linux");
        // RFC 9438's on the linux profile is written, so that it reads back.
        let rfc = parse_tcp(&json!({"cubic_arithmetic": "rfc9438"}), "tcp", &linux).unwrap();
        assert_eq!(rfc.cc.cubic.arithmetic, CubicArithmetic::Rfc9438);
        let written = serde_json::to_value(&rfc).unwrap();
        assert_eq!(written["cubic_arithmetic"], "rfc9438");
        assert_eq!(parse_tcp(&written, "tcp", &base).unwrap(), rfc);
        assert_eq!((linux.variant, linux.initial_window), (Variant::Sack, 10));
        // Reno on the linux profile is written out, so that it reads back as Reno.
        let reno = parse_tcp(
            &json!({"congestion_control": "reno", "hystart": false}),
            "tcp",
            &linux,
        )
        .unwrap();
        let written = serde_json::to_value(&reno).unwrap();
        assert_eq!(written["congestion_control"], "reno");
        // The older profiles' resolved tables have no such keys (their hashes are unchanged).
        let written = serde_json::to_value(&base).unwrap();
        assert!(written.get("congestion_control").is_none());
        assert!(written.get("cubic_beta").is_none());
    }

    #[test]
    fn bbr_is_chosen_on_the_linux_profile_and_refused_without_sack_recovery_or_with_overhead() {
        let linux = TcpConfig::profile("linux").unwrap();
        let bbr = parse_tcp(&json!({"congestion_control": "bbr"}), "tcp", &linux).unwrap();
        assert_eq!(bbr.cc.algorithm, Algorithm::Bbr);
        let written = serde_json::to_value(&bbr).unwrap();
        assert_eq!(written["congestion_control"], "bbr");
        let mut fields = written.as_object().unwrap().clone();
        fields.remove("profile");
        assert_eq!(
            parse_tcp(&Value::Object(fields), "tcp", &linux).unwrap(),
            bbr
        );
        // The linux profile itself stays CUBIC.
        assert_eq!(linux.cc.algorithm, Algorithm::Cubic);
        refused(
            &linux,
            json!({"congestion_control": "bbr"}),
            "congestion_control",
            &[
                (
                    json!({"variant": "newreno"}),
                    "variant = \"sack\" (variant is \"newreno\")",
                ),
                (
                    json!({"sack_recovery": "ns2"}),
                    "sack_recovery = \"rfc6675\"",
                ),
                (json!({"overhead": "1ms"}), "overhead = 0"),
            ],
        );
    }

    #[test]
    fn the_bsd_options_parse_and_round_trip() {
        let base = TcpConfig::profile("rfc").unwrap();
        let c = parse_tcp(
            &json!({"delack": "window-update", "fin_piggyback": true, "buffer_roundup": true,
                    "send_chunk": "2KiB", "recovery_exit_deflate_at": 4}),
            "tcp",
            &base,
        )
        .unwrap();
        assert_eq!(c.delack, DelAck::WindowUpdate);
        assert!(c.fin_piggyback && c.buffer_roundup);
        assert_eq!(c.send_chunk, Size(2048));
        assert_eq!(c.recovery_exit_deflate_at, Some(4));
        let zero = |v: Value| parse_tcp(&json!({"send_chunk": v}), "tcp", &c).unwrap();
        for v in [json!("0"), json!(0), json!("0B")] {
            assert_eq!(zero(v).send_chunk, Size(0));
        }
        let always = parse_tcp(&json!({"recovery_exit_deflate_at": "always"}), "tcp", &c).unwrap();
        assert_eq!(always.recovery_exit_deflate_at, None);
        // What the resolved scenario writes reads back as the same settings, for every profile.
        for name in PROFILES {
            let p = TcpConfig::profile(name).unwrap();
            let written = serde_json::to_value(&p).unwrap();
            let mut fields = written.as_object().unwrap().clone();
            fields.remove("profile");
            let back = parse_tcp(&Value::Object(fields), "tcp", &p).unwrap();
            assert_eq!(back, p, "{name}");
        }
    }

    #[test]
    fn recovery_cwnd_is_written_only_when_prr_and_refused_with_ns2_or_bsd_recovery() {
        let base = TcpConfig::profile("rfc").unwrap();
        only_linux_lists("recovery_cwnd", "prr", |p| {
            *p.recovery_cwnd == RecoveryCwnd::Standard
        });
        let standard = parse_tcp(&json!({"recovery_cwnd": "standard"}), "tcp", &base).unwrap();
        assert_eq!(standard, base);
        for profile in ["rfc", "linux", "ns2-2003"] {
            let prr = parse_tcp(
                &json!({"profile": profile, "recovery_cwnd": "prr"}),
                "tcp",
                &base,
            )
            .unwrap();
            assert_eq!(*prr.recovery_cwnd, RecoveryCwnd::Prr);
            let written = serde_json::to_value(&prr).unwrap();
            assert_eq!(written["recovery_cwnd"], "prr");
            assert_eq!(parse_tcp(&written, "tcp", &base).unwrap(), prr);
        }
        let err = |v: Value| parse_tcp(&v, "tcp", &base).unwrap_err();
        assert_eq!(
            err(json!({"recovery_cwnd": "rate-halving"})).path,
            "tcp.recovery_cwnd"
        );
        refused(
            &base,
            json!({"recovery_cwnd": "prr"}),
            "recovery_cwnd",
            &[
                (
                    json!({"recovery_window": "ns2"}),
                    "recovery_window = \"rfc\"",
                ),
                (
                    json!({"sack_recovery": "ns2"}),
                    "sack_recovery = \"rfc6675\"",
                ),
                (json!({"precise_reduce": true}), "precise_reduce = false"),
                (
                    json!({"recovery_exit_deflate_at": 3}),
                    "recovery_exit_deflate_at = \"always\"",
                ),
                (json!({"profile": "ns2-2.35"}), "recovery_window = \"rfc\""),
                (
                    json!({"profile": "freebsd-2.2"}),
                    "recovery_exit_deflate_at",
                ),
            ],
        );
        // Sack1's pipe decides nothing outside SACK recovery.
        let newreno = json!({"recovery_cwnd": "prr", "variant": "newreno", "sack_recovery": "ns2"});
        assert!(parse_tcp(&newreno, "tcp", &base).is_ok());
    }

    #[test]
    fn pacing_is_written_only_when_on_and_its_ratios_only_with_it() {
        let base = TcpConfig::profile("rfc").unwrap();
        no_profile_lists("pacing", |p| p.pacing == Pacing::Off);
        no_profile_lists("pacing_ss_ratio", |_| true);
        assert_eq!(
            parse_tcp(&json!({"pacing": "off"}), "tcp", &base).unwrap(),
            base
        );
        let on = parse_tcp(&json!({"pacing": "linux"}), "tcp", &base).unwrap();
        assert_eq!(on.pacing, Pacing::LINUX);
        let written = serde_json::to_value(&on).unwrap();
        assert_eq!(
            (
                &written["pacing"],
                &written["pacing_ss_ratio"],
                &written["pacing_ca_ratio"]
            ),
            (&json!("linux"), &json!(200), &json!(120))
        );
        assert_eq!(parse_tcp(&written, "tcp", &base).unwrap(), on);
        let ratios = json!({"pacing": "linux", "pacing_ss_ratio": 150, "pacing_ca_ratio": 0});
        let slower = parse_tcp(&ratios, "tcp", &base).unwrap();
        let expected = Pacing::Linux {
            ss_ratio: 150,
            ca_ratio: 0,
        };
        assert_eq!(slower.pacing, expected);
        // "linux" again keeps the ratios it has.
        let again = parse_tcp(&json!({"pacing": "linux"}), "tcp", &slower).unwrap();
        assert_eq!(again.pacing, expected);
        let bbr = json!({"profile": "linux", "congestion_control": "bbr", "pacing": "linux"});
        assert!(parse_tcp(&bbr, "tcp", &base).is_ok());
        let err = |v: Value| parse_tcp(&v, "tcp", &base).unwrap_err();
        assert_eq!(err(json!({"pacing": "fq"})).path, "tcp.pacing");
        assert_eq!(err(json!({"pacing": true})).path, "tcp.pacing");
        let alone = err(json!({"pacing_ss_ratio": 150}));
        assert_eq!(alone.path, "tcp.pacing_ss_ratio");
        assert!(
            alone.message.contains("pacing = \"linux\""),
            "{}",
            alone.message
        );
        let off = err(json!({"pacing": "off", "pacing_ca_ratio": 100}));
        assert_eq!(off.path, "tcp.pacing_ca_ratio");
        for ratio in [json!(1001), json!(-1), json!(1.5)] {
            let v = json!({"pacing": "linux", "pacing_ca_ratio": ratio});
            assert_eq!(err(v).path, "tcp.pacing_ca_ratio");
        }
        let overhead = err(json!({"pacing": "linux", "overhead": "1ms"}));
        assert_eq!(overhead.path, "tcp.pacing");
        assert!(
            overhead.message.contains("overhead = 0"),
            "{}",
            overhead.message
        );
    }

    #[test]
    fn loss_detection_is_written_only_when_rack_tlp_and_refused_without_linux_sack_recovery() {
        let rfc = TcpConfig::profile("rfc").unwrap();
        only_linux_lists("loss_detection", "rack-tlp", |p| {
            *p.loss_detection == LossDetection::DupAck
        });
        let dupack = json!({"profile": "linux", "loss_detection": "dupack"});
        let linux_dupack = parse_tcp(&dupack, "tcp", &rfc).unwrap();
        assert_eq!(*linux_dupack.loss_detection, LossDetection::DupAck);
        let written = serde_json::to_value(&linux_dupack).unwrap();
        assert_eq!(
            written["loss_detection"], "dupack",
            "the linux profile lists it"
        );
        assert_eq!(parse_tcp(&written, "tcp", &rfc).unwrap(), linux_dupack);
        let keys = json!({"profile": "linux", "loss_detection": "rack-tlp"});
        let rack = parse_tcp(&keys, "tcp", &rfc).unwrap();
        assert_eq!(*rack.loss_detection, LossDetection::RackTlp);
        let written = serde_json::to_value(&rack).unwrap();
        assert_eq!(written["loss_detection"], "rack-tlp");
        assert_eq!(parse_tcp(&written, "tcp", &rfc).unwrap(), rack);
        let bbr = json!({"congestion_control": "bbr", "recovery_cwnd": "prr"});
        assert!(parse_tcp(&bbr, "tcp", &rack).is_ok());
        let err = |v: Value| parse_tcp(&v, "tcp", &rfc).unwrap_err();
        assert_eq!(
            err(json!({"loss_detection": "fack"})).path,
            "tcp.loss_detection"
        );
        refused(
            &rfc,
            json!({"loss_detection": "rack-tlp"}),
            "loss_detection",
            &[
                (
                    json!({"profile": "linux", "variant": "newreno"}),
                    "variant = \"sack\" (variant is \"newreno\")",
                ),
                (json!({"profile": "ns2-2003"}), "variant = \"sack\""),
                (
                    json!({"profile": "linux", "sack_recovery": "ns2"}),
                    "sack_recovery = \"rfc6675\"",
                ),
                // rfc discards the scoreboard after a timeout.
                (json!({"variant": "sack"}), "sack_after_rto = \"keep\""),
            ],
        );
    }
}
