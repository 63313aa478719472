/* epoll waits in microseconds: epoll_pwait2 where the kernel has it, epoll_wait otherwise. */
#ifndef HX_EVWAIT_H
#define HX_EVWAIT_H

#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <time.h>

/* Waits at most <us> microseconds. WHY the fallback: kernels before 5.11
 * and valgrind (used for instruction counts) answer ENOSYS; there the wait
 * is rounded up to the millisecond, never down. */
static inline int ev_wait(int epfd, struct epoll_event *evs, int max, uint64_t us)
{
	static int no_pwait2;
	int n;

	if (!no_pwait2) {
		struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

		n = epoll_pwait2(epfd, evs, max, &ts, NULL);
		if (n >= 0 || errno != ENOSYS)
			return n;
		no_pwait2 = 1;
	}
	return epoll_wait(epfd, evs, max, (int)((us + 999) / 1000));
}

#endif
