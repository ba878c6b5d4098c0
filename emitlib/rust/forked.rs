// SPDX-License-Identifier: GPL-2.0
//
// A forked child that sends one line back through a pipe while the parent goes on: the
// emitters' `fork` step (the child's counts) and the contract's `fork` command (its
// enabled check and write) both need it. A module of
// the ehconf-emit crate, as desc.rs is.

use std::io::{self, Read, Write};
use std::os::unix::io::FromRawFd;

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Forks. The child runs `child`, whose (line, exit status) it sends and `_exit`s with (1
/// if the line could not be sent); this process runs `parent`, then reads the line and
/// waits for the child. Ok((line, wait status)), or Err((the call that failed, errno))
/// when there is no child, and then `parent` has not run.
pub fn run<T: ?Sized>(
    t: &T,
    child: impl FnOnce(&T) -> (String, i32),
    parent: impl FnOnce(&T),
) -> Result<(String, i32), (&'static str, i32)> {
    // Output buffered now would be written twice, once by each process.
    let _ = io::stdout().flush();
    let _ = io::stderr().flush();
    let mut fds = [0 as libc::c_int; 2];
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(("pipe", errno()));
    }
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let e = errno();
        unsafe {
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
        return Err(("fork", e));
    }
    if pid == 0 {
        unsafe { libc::close(fds[0]) };
        let (line, code) = child(t);
        let _ = io::stdout().flush();
        // _exit: the child must not run the parent's exit handlers or flush its buffers.
        unsafe {
            let n = libc::write(fds[1], line.as_ptr() as *const libc::c_void, line.len());
            libc::_exit(if n == line.len() as isize { code } else { 1 });
        }
    }
    unsafe { libc::close(fds[1]) };
    parent(t);
    let mut got = String::new();
    let _ = unsafe { std::fs::File::from_raw_fd(fds[0]) }.read_to_string(&mut got);
    let mut status = 0;
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0 && errno() == libc::EINTR {}
    Ok((got, status))
}
