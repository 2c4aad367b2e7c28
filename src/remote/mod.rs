//! What the streaming verbs (`exec`, `cp`, `attach`, `port-forward`, `run --attach`) need that
//! does no I/O: the channel framing of the streaming protocols and how a remote command ended
//! ([`channel`]), port and address specifications ([`ports`]), and `cp`'s file specifications and tar paths ([`copy`]). The
//! connections are [`crate::client`]'s.

pub mod channel;
pub mod copy;
pub mod ports;
pub mod tarball;
