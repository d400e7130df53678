//! How every file pawns writes outside its data file is written (exports, backups,
//! plots, reports, experiment output): created new under a temporary name in the same
//! directory and put in place in one step when it is complete — never through a
//! symlink, never over a file that is there unless the caller was told to replace it
//! (`--force`), and never over the data file or its search index, whatever it was told.
//!
//! A reader therefore never sees half a file under the final name, an interrupted write
//! leaves no file there (its temporary file is removed), and a planted symlink can only
//! be refused.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Why a file was not written.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{0} exists; it is never overwritten (the command line's --force replaces it)")]
    Exists(PathBuf),
    #[error("{0} is a symbolic link; files are never written through one")]
    Symlink(PathBuf),
    #[error("{0} is the data file or its search index; nothing is ever written over them")]
    Protected(PathBuf),
    #[error("{0} has no file name")]
    NoName(PathBuf),
    #[error("{path}: {err}")]
    Io { path: PathBuf, err: io::Error },
}

impl FileError {
    /// A stable code for programs and logs.
    pub fn code(&self) -> &'static str {
        match self {
            FileError::Exists(_) => "file_exists",
            FileError::Symlink(_) => "file_is_symlink",
            FileError::Protected(_) => "file_protected",
            FileError::NoName(_) => "bad_path",
            FileError::Io { err, .. } if err.raw_os_error() == Some(28) => "disk_full",
            FileError::Io { .. } => "io_error",
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> FileError + '_ {
    move |err| FileError::Io { path: path.to_path_buf(), err }
}

/// Files and directories nothing may be written over: the data file and its index.
static PROTECTED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Marks `path` (a file, or a directory and everything under it) as never to be written
/// by [`create`]. The server protects its data file and index; the CLI the file it opens.
pub fn protect(path: &Path) {
    let p = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let p = p.canonicalize().unwrap_or(p);
    let mut list = PROTECTED.lock().unwrap_or_else(|e| e.into_inner());
    if !list.contains(&p) {
        list.push(p);
    }
}

/// Whether writing `dest` would touch a protected file: its own path, or the file a
/// link or another name of it resolves to, is protected or inside a protected directory.
fn protected(dest: &Path) -> bool {
    let list = PROTECTED.lock().unwrap_or_else(|e| e.into_inner());
    let abs = std::path::absolute(dest).unwrap_or_else(|_| dest.to_path_buf());
    // The directory as it resolves, then the name: `dir/../pawns.redb` and a link to
    // the directory both land on the same place.
    let resolved = match (abs.parent().and_then(|d| d.canonicalize().ok()), abs.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => abs.clone(),
    };
    let target = resolved.canonicalize().unwrap_or_else(|_| resolved.clone());
    list.iter().any(|p| [&abs, &resolved, &target].iter().any(|d| d.starts_with(p)))
}

/// Checks that `dest` may be written: not protected, not a symlink, and not there
/// unless `replace`.
pub fn check_dest(dest: &Path, replace: bool) -> Result<(), FileError> {
    if dest.file_name().is_none() {
        return Err(FileError::NoName(dest.to_path_buf()));
    }
    if protected(dest) {
        return Err(FileError::Protected(dest.to_path_buf()));
    }
    match std::fs::symlink_metadata(dest) {
        Ok(m) if m.file_type().is_symlink() => Err(FileError::Symlink(dest.to_path_buf())),
        Ok(_) if !replace => Err(FileError::Exists(dest.to_path_buf())),
        Ok(m) if m.is_dir() => Err(FileError::Exists(dest.to_path_buf())),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(dest)(e)),
    }
}

/// A file being written: under a temporary name until [`NewFile::commit`]; dropped
/// without a commit, its temporary file is removed.
pub struct NewFile {
    dest: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
    replace: bool,
    committed: bool,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// Starts writing `dest` (see the module's rules). The temporary file is created new
/// (`O_EXCL`: never an existing file, never through a link) beside it.
pub fn create(dest: &Path, replace: bool) -> Result<NewFile, FileError> {
    check_dest(dest, replace)?;
    let (tmp, file) = tmp_beside(dest)?;
    Ok(NewFile { dest: dest.to_path_buf(), tmp, file: Some(file), replace, committed: false })
}

/// A temporary file made new (`O_EXCL`) beside `dest`.
fn tmp_beside(dest: &Path) -> Result<(PathBuf, File), FileError> {
    let name = dest.file_name().ok_or_else(|| FileError::NoName(dest.to_path_buf()))?;
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = dir.join(format!(".{}.pawns-tmp-{}-{}", name.to_string_lossy(), std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
    let file = OpenOptions::new().read(true).write(true).create_new(true).open(&tmp).map_err(io_err(&tmp))?;
    Ok((tmp, file))
}

/// Starts writing a new copy of the data file at `data` (compaction's), under a
/// temporary name beside it: the one file [`NewFile::commit_over_data_file`] may put in
/// place of the data file. `data` must be a file and not a symlink.
pub fn create_beside(data: &Path) -> Result<NewFile, FileError> {
    match std::fs::symlink_metadata(data) {
        Ok(m) if m.file_type().is_symlink() => return Err(FileError::Symlink(data.to_path_buf())),
        Ok(_) => {}
        Err(e) => return Err(io_err(data)(e)),
    }
    let (tmp, file) = tmp_beside(data)?;
    Ok(NewFile { dest: data.to_path_buf(), tmp, file: Some(file), replace: true, committed: false })
}

impl NewFile {
    /// A copy of the data file made by [`create_beside`], synced and renamed over it
    /// (compaction: the caller holds the data file open, so nobody writes the old one
    /// meanwhile, and has checked the copy holds all of it). Never through a symlink.
    pub fn commit_over_data_file(mut self) -> Result<(), FileError> {
        match self.file.take() {
            Some(f) => f.sync_all().map_err(io_err(&self.tmp))?,
            None => File::open(&self.tmp).and_then(|f| f.sync_all()).map_err(io_err(&self.tmp))?,
        }
        if std::fs::symlink_metadata(&self.dest).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(FileError::Symlink(self.dest.clone()));
        }
        std::fs::rename(&self.tmp, &self.dest).map_err(io_err(&self.dest))?;
        self.committed = true;
        if let Some(dir) = self.dest.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }

    /// Where the file is being written now.
    pub fn tmp_path(&self) -> &Path {
        &self.tmp
    }

    /// The open temporary file, for writers that take one (redb's `create_file`). What
    /// is written through it must be flushed by its taker before [`NewFile::commit`].
    pub fn take_file(&mut self) -> Option<File> {
        self.file.take()
    }

    /// Syncs the file and puts it in place: without `replace` only if nothing is at the
    /// destination by then (a hard link fails rather than replace), else by a rename
    /// (which replaces a name, never writes through a link).
    pub fn commit(mut self) -> Result<(), FileError> {
        match self.file.take() {
            Some(f) => f.sync_all().map_err(io_err(&self.tmp))?,
            // Handed over and closed by its taker: synced through a handle of our own.
            None => File::open(&self.tmp).and_then(|f| f.sync_all()).map_err(io_err(&self.tmp))?,
        }
        // Checked again: the destination may have appeared, or been protected, since.
        check_dest(&self.dest, self.replace)?;
        if self.replace {
            std::fs::rename(&self.tmp, &self.dest).map_err(io_err(&self.dest))?;
        } else {
            match std::fs::hard_link(&self.tmp, &self.dest) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(FileError::Exists(self.dest.clone())),
                Err(e) => return Err(io_err(&self.dest)(e)),
            }
            let _ = std::fs::remove_file(&self.tmp);
        }
        self.committed = true;
        if let Some(dir) = self.dest.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

impl Write for NewFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("the file was handed over")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for NewFile {
    fn drop(&mut self) {
        if !self.committed {
            self.file.take();
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `dest` by [`create`] and [`NewFile::commit`].
pub fn write_new(dest: &Path, bytes: &[u8], replace: bool) -> Result<(), FileError> {
    let mut f = create(dest, replace)?;
    f.write_all(bytes).map_err(io_err(dest))?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_written_new_and_never_over_another() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        write_new(&p, b"one", false).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        let e = write_new(&p, b"two", false).unwrap_err();
        assert_eq!(e.code(), "file_exists");
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        write_new(&p, b"three", true).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"three");
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn never_through_a_symlink_even_when_told_to_replace() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        for replace in [false, true] {
            assert_eq!(write_new(&link, b"x", replace).unwrap_err().code(), "file_is_symlink");
        }
        // A dangling link too.
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert_eq!(write_new(&dangling, b"x", false).unwrap_err().code(), "file_is_symlink");
        assert!(!dir.path().join("nowhere").exists());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    }

    #[test]
    fn a_protected_file_or_directory_is_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("pawns.redb");
        std::fs::write(&data, b"data").unwrap();
        let index = dir.path().join("pawns.redb.index");
        std::fs::create_dir(&index).unwrap();
        protect(&data);
        protect(&index);
        assert_eq!(write_new(&data, b"x", true).unwrap_err().code(), "file_protected");
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        assert_eq!(write_new(&sub.join("../pawns.redb"), b"x", true).unwrap_err().code(), "file_protected");
        assert_eq!(write_new(&index.join("meta.json"), b"x", true).unwrap_err().code(), "file_protected");
        assert_eq!(std::fs::read(&data).unwrap(), b"data");
    }

    #[test]
    fn an_unfinished_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("half.parquet");
        {
            let mut f = create(&p, false).unwrap();
            f.write_all(b"half").unwrap();
        }
        assert!(!p.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
