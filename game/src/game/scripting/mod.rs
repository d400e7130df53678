mod dg_commands;
pub mod dg_host;
mod dg_points;
pub mod dg_run;
pub mod lua;
pub mod scripted;
