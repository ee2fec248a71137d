//! The index opened where its directory cannot be written (a read-only
//! mount): tantivy's reader takes a lock file before it reads `meta.json`,
//! which a read-only disk refuses, so this directory hands out a lock that
//! holds nothing. Safe there because nothing can write through this view
//! of the files; a writer elsewhere (the same files mounted writable) may
//! commit while it reads, which is what any stale answer accepts: the
//! segments a reader mapped stay readable after a merge unlinks them.

use std::path::Path;
use std::sync::Arc;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};

/// A directory on a disk that refuses writes: reads pass through, locks
/// hold nothing, writes fail as the disk makes them fail.
#[derive(Debug, Clone)]
pub(super) struct Unlocked(pub MmapDirectory);

impl Directory for Unlocked {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.0.get_file_handle(path)
    }
    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.0.delete(path)
    }
    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.0.exists(path)
    }
    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.0.open_write(path)
    }
    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.0.atomic_read(path)
    }
    fn atomic_write(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
        self.0.atomic_write(path, data)
    }
    fn sync_directory(&self) -> std::io::Result<()> {
        self.0.sync_directory()
    }
    fn acquire_lock(&self, _lock: &Lock) -> Result<DirectoryLock, LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }
    fn watch(&self, cb: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.0.watch(cb)
    }
}
