pub mod dg_host;
pub mod dg_run;
pub mod lua;
pub mod scripted;
