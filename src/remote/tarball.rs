//! The local side of `cp`: a tar stream of local files as kubectl's `makeTar` writes it (names
//! relative to the destination's directory; a directory's own entry only when it is empty), and
//! a pod's tar stream unpacked as kubectl's `untarAll` does (below the destination only, without
//! the source's prefix, symbolic links skipped with a warning, files created anew). Local file
//! I/O, no printing: warnings are handed to the caller.

use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use super::copy;

/// A tar record: the stream is padded to a whole number of them, so that a `tar` that reads
/// whole records (GNU tar) ends at the end of the archive even when its stdin is never closed,
/// as on nodes that do not pass stdin's end on (kwok's).
const RECORD: u64 = 10240;

/// Writes `src` (a local path) as a tar stream whose names place it at `dest` (a path in the
/// pod, relative to the directory `tar -C` is given: `dir(dest)`).
pub fn write_tar(src: &str, dest: &str, out: impl Write) -> io::Result<()> {
    let mut builder = tar::Builder::new(Counting { inner: out, count: 0 });
    builder.follow_symlinks(false);
    let src = copy::clean(src);
    let dest = copy::clean(dest);
    add(&mut builder, &copy::dir(&src), &copy::base(&src), &copy::base(&dest))?;
    let mut out = builder.into_inner()?;
    let padding = (RECORD - out.count % RECORD) % RECORD;
    out.write_all(&vec![0u8; padding as usize])?;
    out.flush()
}

/// A writer that counts what it wrote.
struct Counting<W> {
    inner: W,
    count: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.count += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn header_for(meta: &fs::Metadata, kind: tar::EntryType) -> tar::Header {
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(kind);
    header.set_mode(meta.mode() & 0o7777);
    header.set_uid(meta.uid().into());
    header.set_gid(meta.gid().into());
    header.set_mtime(meta.mtime().max(0) as u64);
    header.set_size(0);
    header
}

fn add<W: Write>(builder: &mut tar::Builder<W>, src_dir: &str, src_file: &str, dest_file: &str) -> io::Result<()> {
    let path = copy::join(src_dir, src_file);
    let meta = fs::symlink_metadata(&path)?;
    if meta.is_dir() {
        let mut children: Vec<String> = fs::read_dir(&path)?
            .map(|entry| entry.map(|entry| entry.file_name().to_string_lossy().into_owned()))
            .collect::<io::Result<_>>()?;
        children.sort();
        if children.is_empty() {
            let mut header = header_for(&meta, tar::EntryType::Directory);
            builder.append_data(&mut header, dest_file, io::empty())?;
        }
        for child in children {
            add(builder, src_dir, &copy::join(src_file, &child), &copy::join(dest_file, &child))?;
        }
    } else if meta.file_type().is_symlink() {
        let target = fs::read_link(&path)?;
        let mut header = header_for(&meta, tar::EntryType::Symlink);
        builder.append_link(&mut header, dest_file, target)?;
    } else {
        let mut header = header_for(&meta, tar::EntryType::Regular);
        header.set_size(meta.len());
        builder.append_data(&mut header, dest_file, fs::File::open(&path)?)?;
    }
    Ok(())
}

/// What unpacking noted on the way: kubectl's warnings, each a line for stderr.
pub type Warn<'a> = &'a mut dyn FnMut(String);

/// Unpacks the pod's tar stream into `dest`: each member's name without `prefix`, below `dest`.
/// `symlink_hint` is kubectl's advice printed with the first skipped symbolic link
/// (`(consider using "kubectl exec -n "ns" "pod" -- tar cf - "src" | tar xf -")`).
pub fn unpack(
    input: impl Read,
    prefix: &str,
    dest: &str,
    symlink_hint: Option<&str>,
    warn: Warn,
) -> Result<(), String> {
    let mut archive = tar::Archive::new(input);
    let entries = archive.entries().map_err(|err| err.to_string())?;
    let mut hinted = false;
    for entry in entries {
        let mut entry = entry.map_err(|err| err.to_string())?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let Some(target) = copy::member_destination(&name, prefix, dest)? else {
            warn(format!(
                "warning: file {target:?} is outside target destination, skipping",
                target = copy::join(dest, &name[prefix.len()..])
            ));
            continue;
        };
        let parent = copy::dir(&target);
        fs::create_dir_all(&parent).map_err(|err| go_path_error("mkdir", &parent, &err))?;
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            fs::create_dir_all(&target).map_err(|err| go_path_error("mkdir", &target, &err))?;
            continue;
        }
        if kind.is_symlink() {
            let link =
                entry.link_name_bytes().map(|bytes| String::from_utf8_lossy(&bytes).into_owned()).unwrap_or_default();
            match symlink_hint.filter(|_| !hinted) {
                Some(hint) => {
                    warn(format!("warning: skipping symlink: {target:?} -> {link:?} {hint}"));
                    hinted = true;
                }
                None => warn(format!("warning: skipping symlink: {target:?} -> {link:?}")),
            }
            continue;
        }
        let mut file = fs::File::create(Path::new(&target)).map_err(|err| go_path_error("open", &target, &err))?;
        io::copy(&mut entry, &mut file).map_err(|err| err.to_string())?;
    }
    Ok(())
}

/// Go's `*PathError` text: `open out/a: permission denied`.
fn go_path_error(op: &str, path: &str, err: &io::Error) -> String {
    let reason = match err.kind() {
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::AlreadyExists => "file exists".to_string(),
        _ => err.to_string(),
    };
    format!("{op} {path}: {reason}")
}

/// A reader over chunks sent from another thread; the senders' end is the end of the stream.
pub struct ChunkReader {
    chunks: std::sync::mpsc::Receiver<Vec<u8>>,
    current: Vec<u8>,
    position: usize,
}

impl ChunkReader {
    pub fn new(chunks: std::sync::mpsc::Receiver<Vec<u8>>) -> Self {
        ChunkReader { chunks, current: Vec::new(), position: 0 }
    }
}

impl Read for ChunkReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.position == self.current.len() {
            match self.chunks.recv() {
                Ok(chunk) => {
                    self.current = chunk;
                    self.position = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let count = buf.len().min(self.current.len() - self.position);
        buf[..count].copy_from_slice(&self.current[self.position..self.position + count]);
        self.position += count;
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_round_trips_under_a_new_name() {
        let from = tempfile::tempdir().unwrap();
        let src = from.path().join("data");
        fs::create_dir_all(src.join("sub")).unwrap();
        fs::create_dir_all(src.join("empty")).unwrap();
        fs::write(src.join("a.txt"), "a\n").unwrap();
        fs::write(src.join("sub/b.txt"), "b\n").unwrap();
        std::os::unix::fs::symlink("a.txt", src.join("link")).unwrap();
        let mut stream = Vec::new();
        write_tar(src.to_str().unwrap(), "/remote/copy", &mut stream).unwrap();
        let names: Vec<String> = tar::Archive::new(stream.as_slice())
            .entries()
            .unwrap()
            .map(|entry| String::from_utf8_lossy(&entry.unwrap().path_bytes()).into_owned())
            .collect();
        assert_eq!(names, ["copy/a.txt", "copy/empty", "copy/link", "copy/sub/b.txt"]);

        let to = tempfile::tempdir().unwrap();
        let dest = to.path().join("out");
        let mut warnings = Vec::new();
        unpack(stream.as_slice(), "copy", dest.to_str().unwrap(), None, &mut |line| warnings.push(line)).unwrap();
        assert_eq!(fs::read_to_string(dest.join("a.txt")).unwrap(), "a\n");
        assert_eq!(fs::read_to_string(dest.join("sub/b.txt")).unwrap(), "b\n");
        assert!(dest.join("empty").is_dir());
        assert!(!dest.join("link").exists());
        assert_eq!(
            warnings,
            [format!("warning: skipping symlink: {:?} -> \"a.txt\"", dest.join("link").to_str().unwrap())]
        );
    }

    #[test]
    fn members_outside_the_prefix_are_refused() {
        let from = tempfile::tempdir().unwrap();
        fs::write(from.path().join("f"), "x").unwrap();
        let mut stream = Vec::new();
        write_tar(from.path().join("f").to_str().unwrap(), "f", &mut stream).unwrap();
        let to = tempfile::tempdir().unwrap();
        let err = unpack(stream.as_slice(), "g", to.path().to_str().unwrap(), None, &mut |_| {}).unwrap_err();
        assert_eq!(err, "tar contents corrupted");
    }
}
