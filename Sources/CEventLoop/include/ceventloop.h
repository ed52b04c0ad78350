#ifndef CEVENTLOOP_H
#define CEVENTLOOP_H
// The Linux primitives the box's event loops are built from, one header per topic.
#include "qb_timers.h"
#include "qb_wakeups.h"
#include "qb_poll.h"
#include "qb_inotify.h"
#include "qb_unix_socket.h"
#include "qb_process.h"
#endif
