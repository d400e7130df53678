//! The connections' tasks, tracked so that a stop can end them: each holds what every
//! connection shares (`Shared`, and with it the data file's store), and the file stays
//! locked until the last holder lets go. A server stopped and started again on the same
//! file in one process (the tests, an embedding) was refused while a session outlived
//! the stop.
//!
//! The server owns the set (`Tasks`); connections spawn into it through a weak handle
//! (`TaskSpawner`, kept in `Shared`), so the set is never kept alive by its own tasks.

use std::future::Future;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;

type Set = Mutex<JoinSet<()>>;

/// The set of connection tasks: what the server stops.
#[derive(Default)]
pub struct Tasks(Arc<Set>);

/// Spawns into the server's set (or, once the server has stopped, on its own).
#[derive(Clone, Default)]
pub struct TaskSpawner(Weak<Set>);

impl Tasks {
    pub fn spawner(&self) -> TaskSpawner {
        TaskSpawner(Arc::downgrade(&self.0))
    }

    /// Tasks not yet ended.
    pub fn open(&self) -> usize {
        let mut set = lock(&self.0);
        while set.try_join_next().is_some() {}
        set.len()
    }

    /// Waits up to `grace` for the tasks to end by themselves (sessions told of the stop
    /// say goodbye and close), then ends the rest (a login prompt waiting for a name, a
    /// request half sent) and waits until they are gone. Tasks spawned meanwhile (a
    /// session's own helpers) are waited for the same way. Returns how many there were.
    pub async fn close(&self, grace: Duration) -> usize {
        let deadline = Instant::now() + grace;
        let mut seen = 0;
        // A task ended may have spawned others: a few rounds take those too.
        for _ in 0..8 {
            let mut set = std::mem::take(&mut *lock(&self.0));
            if set.is_empty() {
                break;
            }
            seen += set.len();
            let _ = tokio::time::timeout_at(deadline, async { while set.join_next().await.is_some() {} }).await;
            set.shutdown().await;
        }
        seen
    }
}

impl TaskSpawner {
    pub fn spawn<F>(&self, task: F) -> AbortHandle
    where
        F: Future<Output = ()> + Send + 'static,
    {
        match self.0.upgrade() {
            Some(set) => {
                let mut set = lock(&set);
                // Ended tasks are reaped as new ones come, so the set holds the open ones.
                while set.try_join_next().is_some() {}
                set.spawn(task)
            }
            None => tokio::spawn(task).abort_handle(),
        }
    }
}

fn lock(set: &Set) -> std::sync::MutexGuard<'_, JoinSet<()>> {
    // A panic while holding the lock leaves the set as it was: still usable.
    set.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tasks that end by themselves are waited for; the rest are ended at the grace's
    /// end; what they held is let go either way; ended ones do not pile up.
    #[tokio::test]
    async fn a_close_waits_then_ends_what_is_left_and_lets_go() {
        let tasks = Tasks::default();
        let spawn = tasks.spawner();
        let held = Arc::new(());
        for i in 0..10u64 {
            let h = held.clone();
            spawn.spawn(async move {
                let _h = h;
                if i % 2 == 0 {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                } else {
                    std::future::pending::<()>().await;
                }
            });
        }
        // A task spawning another while the stop waits.
        let (h, s) = (held.clone(), spawn.clone());
        spawn.spawn(async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            s.spawn(async move {
                let _h = h;
                std::future::pending::<()>().await;
            });
        });
        assert_eq!(tasks.open(), 11);
        let t = std::time::Instant::now();
        assert_eq!(tasks.close(Duration::from_millis(200)).await, 12);
        assert!(t.elapsed() >= Duration::from_millis(200), "the grace was not given");
        assert_eq!(Arc::strong_count(&held), 1, "an ended task still holds what it held");
        assert_eq!(tasks.open(), 0);

        // Reaped as new ones come: a thousand short tasks leave a small set.
        for _ in 0..1000 {
            spawn.spawn(async {});
            tokio::task::yield_now().await;
        }
        assert!(tasks.open() < 10, "{} tasks left", tasks.open());
        drop(tasks);
        // Once the server is gone, a spawn still runs (on its own).
        let (tx, rx) = tokio::sync::oneshot::channel();
        spawn.spawn(async move {
            let _ = tx.send(());
        });
        rx.await.unwrap();
    }
}
