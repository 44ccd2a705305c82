//! TUN devices (Linux `Documentation/networking/tuntap.rst`): the router attaches to a device
//! that already exists in a host namespace (`ip tuntap add mode tun`, made by the Python side
//! with its addresses and routes), by entering that namespace for the moment it opens the device
//! (setns(2)) and returning. Packets are read and written whole, as IP packets (no packet-info
//! header: `IFF_NO_PI`), without blocking.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

/// linux/if_tun.h: `_IOW('T', 202, int)`.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// An open TUN device.
#[derive(Debug)]
pub struct Tun {
    fd: OwnedFd,
    pub name: String,
}

fn check(ret: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if ret < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(ret)
}

/// Enter the network namespace `ns` (a file such as `/run/netns/NAME`) for the duration of
/// `f`, then return to the one this thread was in.
fn in_namespace<T>(ns: &Path, f: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
    let home = File::open("/proc/thread-self/ns/net")?;
    let target =
        File::open(ns).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", ns.display())))?;
    // SAFETY: setns(2) on open namespace files; it changes only this thread's namespace.
    check(
        unsafe { libc::setns(target.as_raw_fd(), libc::CLONE_NEWNET) },
        "setns",
    )?;
    let out = f();
    // SAFETY: as above, back to the namespace the thread started in.
    let back = check(
        unsafe { libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) },
        "setns back",
    );
    let out = out?;
    back?;
    Ok(out)
}

impl Tun {
    /// Attach to the TUN device `name` of the network namespace `ns`.
    pub fn attach(ns: &Path, name: &str) -> io::Result<Tun> {
        let c_name = CString::new(name)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the name"))?;
        if c_name.as_bytes().len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("device name {name:?} is longer than {}", libc::IFNAMSIZ - 1),
            ));
        }
        let fd = in_namespace(ns, || {
            // SAFETY: open(2) of a constant path; the fd is owned at once.
            let raw = check(
                unsafe {
                    libc::open(
                        c"/dev/net/tun".as_ptr(),
                        libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
                    )
                },
                "/dev/net/tun",
            )?;
            // SAFETY: `raw` is a fresh fd nobody else owns.
            let fd = unsafe { OwnedFd::from_raw_fd(raw) };
            // SAFETY: an all-zero ifreq is valid; the name fits (checked above).
            let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
            for (dst, &src) in req.ifr_name.iter_mut().zip(c_name.as_bytes()) {
                *dst = src as libc::c_char;
            }
            req.ifr_ifru.ifru_flags = IFF_TUN | IFF_NO_PI;
            // SAFETY: TUNSETIFF reads the ifreq we own.
            check(
                unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req) },
                &format!("attaching to {name}"),
            )?;
            Ok(fd)
        })?;
        Ok(Tun {
            fd,
            name: name.to_string(),
        })
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Read one packet into `buf`: its length, or `None` if none is waiting.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: read(2) into a buffer we own, at most its length.
        let n = unsafe { libc::read(self.raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(io::Error::new(
                e.kind(),
                format!("reading {}: {e}", self.name),
            )),
        }
    }

    /// Write one packet. A packet the device cannot take now (its queue full) is lost, as on a
    /// wire: `Ok(false)`.
    pub fn write(&self, packet: &[u8]) -> io::Result<bool> {
        // SAFETY: write(2) from a buffer we own.
        let n = unsafe { libc::write(self.raw_fd(), packet.as_ptr().cast(), packet.len()) };
        if n >= 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(false),
            _ => Err(io::Error::new(
                e.kind(),
                format!("writing {}: {e}", self.name),
            )),
        }
    }
}
