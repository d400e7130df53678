//! The HUD's own worker threads. Assembling a HUD is CPU work dominated by the cl100k
//! tokenizer, whose regexes keep per-thread lazy-DFA caches: on tokio's blocking pool —
//! many short-lived threads — those caches were built again and again (a profile of 500
//! resident agents showed a fifth of the CPU rebuilding them). A few long-lived threads,
//! one per core, keep them warm.

use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send>;

fn queue() -> &'static mpsc::Sender<Job> {
    static QUEUE: OnceLock<mpsc::Sender<Job>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(1, 16);
        for i in 0..n {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new().name(format!("pawns-hud-{i}")).spawn(move || {
                crate::priority::background_thread();
                loop {
                    let job = match rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
                        Ok(job) => job,
                        Err(_) => return,
                    };
                    // A panicking job loses its own answer (the caller sees `None`), not the thread.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            });
            if let Err(e) = spawned {
                tracing::error!("cannot start a HUD thread: {e}");
            }
        }
        tx
    })
}

/// Runs `f` on a HUD thread; `None` if it panicked.
pub async fn run<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(f());
    });
    queue().send(job).ok()?;
    rx.await.ok()
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn jobs_run_and_a_panic_loses_only_its_answer() {
        assert_eq!(super::run(|| 6 * 7).await, Some(42));
        assert_eq!(super::run(|| -> u32 { panic!("boom") }).await, None);
        assert_eq!(super::run(|| 1).await, Some(1), "the threads go on");
    }
}
