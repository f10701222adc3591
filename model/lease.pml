/*
 * One attempt's view of its own lease, against the store's clock: how the engine plans
 * the renewals of an attempt (LeaseRenewer) and decides whether its method may start
 * (the margin check before the method and before each batch item), and what the store
 * does meanwhile. model/README.md maps each step to the Java.
 *
 * Time is discrete: the store's clock and the client's monotonic clock tick together
 * (skew is store.pml's SKEW variant), both read as `now`, 0 when the acquire is sent. The
 * store grants the lease when it runs the acquire, LEASE ticks from then on its clock;
 * the client counts it from when it sent the acquire, so it never believes in more than
 * the store gave. Every delay is a window: the step may happen at any tick of it, and the
 * clock does not tick past the window's end until it has.
 *
 * Variants (spin -D...):
 *   RENEW_FROM_START  the first renewal planned from when renewal starts (the acquire's
 *                     reply, t2 + RENEW) instead of from the grant (t0 + RENEW)
 *   NO_MARGIN         the method starts whenever the client believes any lease is left
 *   PAUSE=k           other bounds on pauses and late renewals (k >= MARGIN breaks L1)
 *   BELIEVE_FROM_REPLY  the client counts its lease from the acquire's reply, not its send
 */

#ifndef LEASE
#define LEASE 12                 /* lock timeout, ticks */
#endif
#define PERIOD (LEASE / 3)       /* LeaseRenewer: renews every third of the lock timeout */
#define SLACK (PERIOD / 4)       /* Renewal.slackNanos: sent a quarter period early */
#define RENEW (PERIOD - SLACK)   /* from a grant or a renewal's send to the next renewal */
#ifndef MARGIN
#define MARGIN PERIOD            /* lease the method needs left to start */
#endif
#ifndef PAUSE
#define PAUSE (MARGIN - 1)       /* the worker's pause before its method, and how late a
                                    renewal is sent, delivered and answered, in all */
#endif
#ifndef DELAY
#define DELAY (LEASE + 1)        /* the acquire's way to the store, and its reply's back:
                                    each may outlast the lease */
#endif
#ifndef WAIT
#define WAIT LEASE               /* from the reply to the margin check: a batch item waits
                                    for the items before it (0 for a single call) */
#endif
#ifndef RUN
#define RUN (2 * LEASE)          /* how long the method runs, at most */
#endif

#define MAX(a, b) ((a) > (b) -> (a) : (b))

/* the attempt's phase */
#define SENT 1                   /* acquire sent at 0, not yet run by the store */
#define REPLYING 2               /* the store granted the lease; the reply is on its way */
#define WAITING 3                /* reply heard, renewals started; the margin check is next */
#define PAUSED 4                 /* the check passed; the worker has not started the method */
#define RUNNING 5                /* the method runs */
#define DONE 6                   /* the method finished */
#define RELEASED 7               /* the check failed: the method never ran */

/* the renewal last sent */
#define IDLE 0                   /* none in flight */
#define INFLIGHT 1               /* sent, not yet run by the store */
#define ANSWERED 2               /* run by the store, its reply on the way */

byte now;                        /* both clocks */

/* the store */
byte store_end;                  /* the lease lives while now < store_end */

/* the attempt (Attempt) */
byte phase = SENT;
byte mark;                       /* when the current phase began */
byte believed_end;               /* Attempt.leaseEndNanos */
bit lost;                        /* a renewal found the lease gone */

/* its renewals (LeaseRenewer.Renewal) */
bit r_on;                        /* being renewed: from the reply until the attempt ends */
byte r_due;                      /* when the sweeper sends the next renewal (dueNanos - slackNanos) */
byte r_state;                    /* the renewal last sent */
byte r_sent;                     /* when it was sent (sentNanos) */
byte r_limit;                    /* when it must have been answered: due + PAUSE */
bit r_ok;                        /* the store's answer */

/* how long the current phase may last */
#define BOUND (phase == SENT -> DELAY : (phase == REPLYING -> DELAY : (phase == WAITING -> WAIT : \
	(phase == PAUSED -> PAUSE : RUN))))
/* a step whose window ends now: the clock waits for it */
#define OVERDUE ((phase < DONE && now >= mark + BOUND) || (r_on && now >= r_due + PAUSE) \
	|| (r_state != IDLE && now >= r_limit))

#ifdef RENEW_FROM_START
#define FIRST_DUE (now + RENEW)             /* from when renewal starts: the reply */
#else
#define FIRST_DUE MAX(RENEW, now)           /* from the grant (0), at once if already due */
#endif

#ifdef NO_MARGIN
#define MAY_START (!lost && believed_end > now)
#else
#define MAY_START (!lost && believed_end >= now + MARGIN)
#endif

#define CHECK(name, cond) if :: (cond) :: else -> printf("VIOLATED "); printf(name); printf("\n"); assert(cond) fi

/* L1: the method never runs on a lease the store has let lapse */
#define CHECK_LEASE_LIVE \
	if \
	:: now >= store_end && r_state == IDLE -> \
		printf("t=%d store: the lease ran out at %d; the next renewal, due at %d, is not sent yet\n", now, store_end, r_due) \
	:: now >= store_end && r_state != IDLE -> \
		printf("t=%d store: the lease ran out at %d; the renewal sent at %d did not reach it in time\n", now, store_end, r_sent) \
	:: else \
	fi; \
	CHECK("L1 the method runs on a lapsed lease", now < store_end)
/* L2: the client never believes in a lease the store did not give */
#define CHECK_BELIEF CHECK("L2 the client believes in more lease than the store gave", lost || believed_end <= store_end)

/* The store runs commands, and their replies come back. */
active proctype Store() {
end:
	do
	:: d_step { phase == SENT ->
		store_end = now + LEASE;
		printf("t=%d store: acquire runs, lease until %d\n", now, store_end);
		phase = REPLYING; mark = now }
	:: d_step { phase < DONE && r_state == INFLIGHT ->
		if
		:: now < store_end ->
			store_end = now + LEASE; r_ok = 1;
			printf("t=%d store: renewal sent at %d runs, lease until %d\n", now, r_sent, store_end)
		:: else ->
			/* lapsed: another attempt may have taken the record over; the model assumes it did */
			r_ok = 0;
			printf("t=%d store: renewal sent at %d refused, the lease lapsed at %d\n", now, r_sent, store_end)
		fi;
		r_state = ANSWERED }
	:: d_step { phase < DONE && r_state == ANSWERED ->
		if
		:: r_ok ->
			/* Attempt.renewed(sent): a lease never shrinks */
			believed_end = MAX(believed_end, r_sent + LEASE);
			printf("t=%d client: renewal sent at %d confirmed, lease believed until %d\n", now, r_sent, believed_end)
		:: else ->
			lost = 1; r_on = 0;
			printf("t=%d client: renewal refused, the attempt lost its lease\n", now)
		fi;
		r_state = IDLE;
		CHECK_BELIEF }
	od
}

/* The sweeper: sends the renewal due, unless the last one is still unanswered. */
active proctype Sweeper() {
end:
	do
	:: d_step { r_on && now >= r_due ->
		if
		:: r_state == IDLE ->
			/* late by at most PAUSE in all: sent, run by the store and answered */
			r_state = INFLIGHT; r_sent = now; r_limit = r_due + PAUSE;
			r_due = now + RENEW;
			printf("t=%d sweeper: renewal sent, next due at %d\n", now, r_due)
		:: else ->
			r_due = now + RENEW;
			printf("t=%d sweeper: renewal skipped, the last one unanswered; next due at %d\n", now, r_due)
		fi }
	od
}

/* The attempt's own steps, on the worker's thread. */
active proctype Worker() {
end:
	do
	:: d_step { phase == REPLYING ->
#ifdef BELIEVE_FROM_REPLY
		believed_end = now + LEASE;            /* counted from the reply */
#else
		believed_end = LEASE;                  /* the acquire's send time + lease */
#endif
		r_on = 1; r_due = FIRST_DUE;
		printf("t=%d client: acquired, lease believed until %d, first renewal due at %d\n", now, believed_end, r_due);
		phase = WAITING; mark = now;
		CHECK_BELIEF }
	:: d_step { phase == WAITING ->
		if
		:: MAY_START ->
			printf("t=%d client: %d ticks of lease left, will start\n", now, believed_end - now);
			phase = PAUSED
		:: else ->
			printf("t=%d client: too little lease left, released without running\n", now);
			phase = RELEASED; r_on = 0
		fi;
		mark = now }
	:: d_step { phase == PAUSED ->
		printf("t=%d client: method starts\n", now);
		phase = RUNNING; mark = now;
		CHECK_LEASE_LIVE }
	:: d_step { phase == RUNNING ->
		printf("t=%d client: method returns\n", now);
		phase = DONE; r_on = 0 }
	od
}

/* The clock ticks while every window is still open. */
active proctype Clock() {
end:
	do
	:: d_step { phase < DONE && !OVERDUE ->
		now++;
		if
		:: phase == RUNNING -> CHECK_LEASE_LIVE
		:: else
		fi }
	od
}
