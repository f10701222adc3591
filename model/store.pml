/*
 * The Redis store protocol of dev.idempotency, as the Lua scripts in
 * idempotency-redis/src/main/resources/dev/idempotency/store/redis/ implement it.
 * model/README.md maps every step below to the script lines it models.
 *
 * One key. Each script is one d_step, since Redis runs a script atomically. Workers
 * acquire, renew, complete or release. A reply may be lost: the command ran, or it is still
 * in flight and lands later, or never; the client then re-sends it or gives up. A worker may
 * crash at any point. A worker that takes no step while the clock ticks is a frozen process,
 * a zombie when it resumes. Time is abstract: a tick of the store clock is one unit, and the
 * record keeps what is left of its lease and of its expiry (PX) relative to now, so the
 * clock never overflows and the search stays finite.
 *
 * Variants (spin -D...):
 *   NO_OWNER_CHECK  complete.lua without the fencing rule (decode instead of decodeOwned)
 *   NO_TOKEN_CHECK  complete.lua checking the fence but not the owner token
 *   SKEW=k          leases written and judged on the caller's clock; worker 0's runs k ahead
 *   PREHARDEN       record expiry before the hardening: PX max(lease, retention) for an
 *                   in-progress record; renew sets PX lease only when the ttl was shorter
 *   NO_RECOVERY     no takeover of an expired lease and no expiry of an in-progress record
 *   LIVENESS        worker 0 never crashes and hears every acquire reply; adds the ltl claim
 */

#ifndef N
#define N 3            /* workers, 2 to 4 */
#endif
#ifndef MAXTOK
#define MAXTOK 1       /* attempts (owner tokens) per worker; with 1, a redelivery is another worker */
#endif
#ifndef LEASE
#define LEASE 2        /* lock-timeout, ticks */
#endif
#ifndef RET
#define RET 2          /* retention, ticks */
#endif
#ifndef MAXLOST
#define MAXLOST 2      /* replies lost (commands that ran unseen or are still in flight), in all */
#endif
#ifndef MAXCRASH
#define MAXCRASH 2     /* workers that crash, in all */
#endif
#ifdef SKEW
#define OFF(w) ((w) == 0 -> SKEW : 0)   /* worker 0's clock runs ahead of the store's */
#else
#define OFF(w) 0
#endif

#define NTOK (N * MAXTOK)
#define TOKEN(w, a) ((w) * MAXTOK + (a) + 1)   /* owner tokens 1..NTOK, unique per attempt */
#define WORKER(t) (((t) - 1) / MAXTOK)
#define BIT(t) (1 << (t))
#define ANYFENCE 0                              /* release's fence "": any fence of this owner */
#define MAX(a, b) ((a) > (b) -> (a) : (b))

/* record states (record.lua) */
#define NONE 0
#define IN_PROGRESS 1
#define COMPLETED 2
#define FAILED 3

/* a worker's phase */
#define ACQ 1          /* trying to acquire (after a lost reply: re-sending) */
#define RUN 2          /* holds the record, its method runs */
#define COMPLETING 3   /* a complete's reply was lost; re-sending it */
#define RELEASING 4    /* a release's reply was lost; re-sending it */
#define DONE 5
#define CRASHED 6

/* commands in flight, besides acquire */
#define L_NONE 0
#define L_COMPLETE 1
#define L_RELEASE 2

/* ---- the store: one record (record.lua), lease and expiry relative to now ---- */
byte r_state;          /* NONE when the key does not exist */
byte r_fence;
byte r_owner;          /* owner token */
byte r_lease;          /* ticks until the lease runs out, 0 once it has */
byte r_ttl;            /* ticks until Redis deletes the key (PX) */
bit r_take;            /* reason == 't': this attempt took over an expired one */
byte r_body;           /* token of the attempt whose result is stored, 0 for none */

/* ---- the workers ---- */
byte phase[N];
byte tokidx[N];        /* current attempt: token TOKEN(w, tokidx[w]) */
byte wfence[N];        /* fence of the attempt it holds */
bit resent[N];         /* this attempt's acquire may have reached the store unseen */
byte held[N];          /* lease it believes it holds while the method runs (isLeaseHeld), ticks */
bit crashed[N];
byte lateAcq[N];       /* an acquire in flight: its token, 0 for none */
byte lateOp[N];        /* a complete or release in flight */
byte lateTok[N];
byte lateFence[N];
byte lost;             /* replies lost so far */
byte crashes;          /* workers crashed so far */

/* ---- ghost state for the properties; the protocol never reads it ---- */
byte written;          /* tokens that have acquired (a new attempt written) */
byte superseded;       /* tokens another attempt has acquired after */
byte completer;        /* token whose complete returned 1 in this record lifetime */
byte cbody;            /* result stored by the first completion in this record lifetime */
byte g_fence;          /* last fence handed out while the record should still live */
byte g_tok;            /* and the token it went to */
byte g_rem;            /* ticks the record should still live, as the README promises: lease +
                          retention past the last acquire or renewal, retention past a
                          complete or release */
bit g_ip;              /* the record that should still live is in progress */
byte g_wfence[NTOK + 1];  /* fence each token's latest new attempt was given */
bit g_wtake[NTOK + 1];    /* and its takeover mark */

/* the reply of the script that just ran: scratch, not part of the state */
hidden byte code;
hidden byte rfence;
hidden byte rtake;
hidden byte fresh;     /* the acquire wrote a new attempt */
hidden byte pre_mine;   /* before this acquire, the record that should live was t's attempt in progress */
hidden byte pre_f;
hidden byte pre_t;

#ifdef PREHARDEN
#define IP_TTL MAX(LEASE, RET)
#else
#define IP_TTL (LEASE + RET)
#endif

/* the fencing rule, decodeOwned in record.lua */
#define OWNS(t, f) (r_state != NONE && r_owner == (t) && ((f) == ANYFENCE || r_fence == (f)))
#if defined(NO_OWNER_CHECK)
#define COMPLETE_OWNS(t, f) (r_state != NONE)
#elif defined(NO_TOKEN_CHECK)
#define COMPLETE_OWNS(t, f) (r_state != NONE && r_fence == (f))
#else
#define COMPLETE_OWNS(t, f) OWNS(t, f)
#endif

/* A property check: a trail (spin -t) names the property it breaks. */
#define CHECK(name, cond) if :: (cond) :: else -> printf("VIOLATED "); printf(name); printf("\n"); assert(cond) fi

/* P2: a completed result is never replaced while it lives */
#define CHECK_RESULT_KEPT CHECK("P2 completed result replaced", \
	cbody == 0 || r_state == NONE || (r_state == COMPLETED && r_body == cbody))

/* P6: running attempts that both believe they hold a lease */
#if N > 3
#define HOLDERS ((held[0] > 0) + (held[1] > 0) + (held[2] > 0) + (held[3] > 0))
#elif N > 2
#define HOLDERS ((held[0] > 0) + (held[1] > 0) + (held[2] > 0))
#else
#define HOLDERS ((held[0] > 0) + (held[1] > 0))
#endif

#define RECORD "    record: state %d fence %d owner %d lease %d ttl %d body %d\n"
#define RECORD_ARGS r_state, r_fence, r_owner, r_lease, r_ttl, r_body

/* acquire.lua, sent by worker w (whose clock is OFF(w) ahead) with owner token t */
inline acquire(w, t) {
	pre_mine = (g_ip && g_tok == t); pre_f = g_wfence[t]; pre_t = g_wtake[t];
	if
	:: r_state == COMPLETED ->
		code = 3; rfence = r_fence
	:: r_state == IN_PROGRESS && r_owner == t ->
		/* a re-sent acquire: its own attempt, same fence and takeover mark, lease again */
		r_lease = LEASE + OFF(w);
		r_ttl = IP_TTL;
		code = 1; rfence = r_fence; rtake = r_take;
		CHECK("P3 re-sent acquire reports another fence or takeover", rfence == g_wfence[t] && rtake == g_wtake[t]);
		g_rem = r_lease + RET; g_ip = 1
#if defined(NO_RECOVERY) || defined(NO_TAKEOVER)
	:: r_state == IN_PROGRESS && r_owner != t ->
#else
	:: r_state == IN_PROGRESS && r_owner != t && r_lease > OFF(w) ->
#endif
		code = 2; rfence = r_fence
	:: else ->
		/* no record, a FAILED one, or an expired lease: a new attempt */
		rtake = (r_state == IN_PROGRESS);
		rfence = (r_state == NONE -> 1 : r_fence + 1);
		r_state = IN_PROGRESS; r_fence = rfence; r_owner = t; r_take = rtake; r_body = 0;
		r_lease = LEASE + OFF(w);
		r_ttl = IP_TTL;
		code = 1; fresh = 1;
		/* every other attempt that acquired before is superseded; this one holds again */
		superseded = (superseded | (written & ~BIT(t))) & ~BIT(t);
		written = written | BIT(t);
		g_wfence[t] = rfence; g_wtake[t] = rtake
	fi;
	printf("acquire  token %d -> %d fence %d takeover %d\n", t, code, rfence, rtake);
	/* judged on ghost state, outside the branch it checks */
	CHECK("P3 re-sent acquire did not get its own attempt back", !pre_mine || (code == 1 && rfence == pre_f && rtake == pre_t));
	pre_mine = 0; pre_f = 0; pre_t = 0;
	printf(RECORD, RECORD_ARGS);
	if
	:: fresh ->
		/* (an acquire re-sent after its own record vanished gets its fence again: no other
		   owner saw it) */
		CHECK("P3 fence did not rise while the record lives", rfence > g_fence || (t == g_tok && rfence == g_fence));
		CHECK("P3 in-progress attempt replaced without a takeover", !g_ip || rtake || t == g_tok);
		g_fence = rfence; g_tok = t; g_rem = r_lease + RET; g_ip = 1;
		fresh = 0
	:: else
	fi;
	CHECK_RESULT_KEPT
}

/* complete.lua */
inline complete(t, f) {
	if
	:: !COMPLETE_OWNS(t, f) -> code = 0
	:: else ->
		if
		:: r_state == COMPLETED -> code = 1   /* writes the same expiry again: no change */
		:: r_state == FAILED -> code = 0
		:: else ->
			r_state = COMPLETED; r_body = t; r_take = 0;
			r_ttl = RET;
			code = 1;
			g_rem = RET; g_ip = 0;
			if
			:: cbody == 0 -> cbody = t
			:: else
			fi
		fi
	fi;
	printf("complete token %d fence %d -> %d\n", t, f, code);
	printf(RECORD, RECORD_ARGS);
	if
	:: code == 1 ->
		CHECK("P1 second successful complete in one record lifetime", completer == 0 || completer == t);
		completer = t;
		/* only the latest attempt of a token completes, and only while no other one has
		   acquired since */
		CHECK("P4 zombie complete succeeded after a takeover", (superseded & BIT(t)) == 0 && f == g_wfence[t])
	:: else
	fi;
	CHECK_RESULT_KEPT
}

/* release.lua; f == ANYFENCE is abandon */
inline release(t, f) {
	if
	:: !OWNS(t, f) -> code = 0
	:: else ->
		if
		:: r_state == FAILED -> code = 1
		:: r_state == COMPLETED -> code = 0
		:: else ->
			r_state = FAILED; r_take = 0;
			r_ttl = RET;
			code = 1;
			g_rem = RET; g_ip = 0
		fi
	fi;
	printf("release  token %d fence %d -> %d\n", t, f, code);
	printf(RECORD, RECORD_ARGS);
	CHECK_RESULT_KEPT
}

/* renew.lua, sent by worker w */
inline renew(w, t, f) {
	if
	:: !OWNS(t, f) -> code = 0
	:: else ->
		if
		:: r_state != IN_PROGRESS -> code = 2
		:: else ->
			r_lease = LEASE + OFF(w);
#ifdef PREHARDEN
			if
			:: r_ttl < LEASE -> r_ttl = LEASE
			:: else        /* KEEPTTL */
			fi;
#else
			r_ttl = LEASE + RET;
#endif
			code = 1;
			g_rem = r_lease + RET; g_ip = 1
		fi
	fi;
	printf("renew    token %d fence %d -> %d\n", t, f, code);
	printf(RECORD, RECORD_ARGS);
	CHECK_RESULT_KEPT
}

#define MINE TOKEN(w, tokidx[w])

/* the delivery comes again: a new attempt with a fresh token, or, when none is left, the
   redelivery is another worker's */
inline next_attempt(w) {
	resent[w] = 0;
	tokidx[w]++;
	if
	:: tokidx[w] == MAXTOK -> phase[w] = DONE
	:: else -> phase[w] = ACQ
	fi
}

/* a worker hears its acquire's reply */
inline heard_acquire(w) {
	if
	:: code == 1 ->
		CHECK("P6 a live lease was taken over", HOLDERS == 0);
		phase[w] = RUN; wfence[w] = rfence; held[w] = LEASE
	:: code == 2 ->
		/* in progress elsewhere: retried (WAIT polls; REJECT is redelivered). The same
		   token stands for a fresh one unless this one may have reached the store. */
		if
		:: resent[w] -> next_attempt(w)
		:: else
		fi
	:: code == 3 -> phase[w] = DONE   /* replays the stored result */
	fi
}

inline send_late(w, op, f) {
	lateOp[w] = op; lateTok[w] = MINE; lateFence[w] = f
}

/* Acquirer.abandon: after an acquire failed, release(owner, "") is sent without waiting
   (it lands later, or never, if no other command of this worker is in flight) */
inline give_up_acquire(w) {
	if
	:: lateOp[w] == L_NONE -> send_late(w, L_RELEASE, ANYFENCE)
	:: else
	fi;
	next_attempt(w)
}

#ifdef LIVENESS
#define CAN_CRASH(w) ((w) != 0 && crashes < MAXCRASH)
#define CAN_LOSE_ACQUIRE(w) ((w) != 0 && lost < MAXLOST)
#else
#define CAN_CRASH(w) (crashes < MAXCRASH)
#define CAN_LOSE_ACQUIRE(w) (lost < MAXLOST)
#endif
#define CAN_LOSE (lost < MAXLOST)
#define RUNNING (phase[w] == RUN || phase[w] == COMPLETING || phase[w] == RELEASING)
#define MAY_COMPLETE (phase[w] == RUN || phase[w] == COMPLETING)
#define MAY_RELEASE (phase[w] == RUN || phase[w] == RELEASING)

proctype Worker(byte w) {
	phase[w] = ACQ;
end:
	do
	/* ---- acquire; after a lost reply, re-send (same token) or give up and abandon ---- */
	:: d_step { phase[w] == ACQ -> printf("w%d ", w); acquire(w, MINE); heard_acquire(w) }
	:: d_step { phase[w] == ACQ && CAN_LOSE_ACQUIRE(w) -> lost++;
		printf("w%d [reply lost, re-sends] ", w); acquire(w, MINE); resent[w] = 1 }
	:: d_step { phase[w] == ACQ && CAN_LOSE_ACQUIRE(w) -> lost++;
		printf("w%d [reply lost, gives up, abandons] ", w); acquire(w, MINE); give_up_acquire(w) }
	:: d_step { phase[w] == ACQ && CAN_LOSE_ACQUIRE(w) && lateAcq[w] == 0 -> lost++;
		printf("w%d acquire token %d in flight, re-sends\n", w, MINE); lateAcq[w] = MINE; resent[w] = 1 }
	:: d_step { phase[w] == ACQ && CAN_LOSE_ACQUIRE(w) && lateAcq[w] == 0 -> lost++;
		printf("w%d acquire token %d in flight, gives up, abandons\n", w, MINE); lateAcq[w] = MINE;
		give_up_acquire(w) }

	/* ---- renew, while the method runs and while its outcome is being recorded ---- */
	:: d_step { RUNNING -> printf("w%d ", w); renew(w, MINE, wfence[w]);
		if
		:: code == 1 && phase[w] == RUN -> held[w] = LEASE
		:: code == 0 -> held[w] = 0        /* isLeaseHeld() turns false */
		:: else
		fi }
	:: d_step { RUNNING && CAN_LOSE -> lost++; printf("w%d [reply lost] ", w); renew(w, MINE, wfence[w]) }

	/* ---- complete; after a lost reply, re-send or give up ---- */
	:: d_step { MAY_COMPLETE -> held[w] = 0; printf("w%d ", w); complete(MINE, wfence[w]); phase[w] = DONE }
	:: d_step { MAY_COMPLETE && CAN_LOSE -> lost++; held[w] = 0;
		printf("w%d [reply lost, will re-send] ", w); complete(MINE, wfence[w]); phase[w] = COMPLETING }
	:: d_step { MAY_COMPLETE && CAN_LOSE -> lost++; held[w] = 0;
		printf("w%d [reply lost, gives up] ", w); complete(MINE, wfence[w]); phase[w] = DONE }
	:: d_step { MAY_COMPLETE && CAN_LOSE && lateOp[w] == L_NONE -> lost++; held[w] = 0;
		printf("w%d complete token %d in flight, will re-send\n", w, MINE);
		send_late(w, L_COMPLETE, wfence[w]); phase[w] = COMPLETING }
	:: d_step { MAY_COMPLETE && CAN_LOSE && lateOp[w] == L_NONE -> lost++; held[w] = 0;
		printf("w%d complete token %d in flight, gives up\n", w, MINE);
		send_late(w, L_COMPLETE, wfence[w]); phase[w] = DONE }

	/* ---- release (the method threw); after a lost reply, re-send or give up ---- */
	:: d_step { MAY_RELEASE -> held[w] = 0; printf("w%d ", w); release(MINE, wfence[w]); phase[w] = DONE }
	:: d_step { MAY_RELEASE && CAN_LOSE -> lost++; held[w] = 0;
		printf("w%d [reply lost, will re-send] ", w); release(MINE, wfence[w]); phase[w] = RELEASING }
	:: d_step { MAY_RELEASE && CAN_LOSE -> lost++; held[w] = 0;
		printf("w%d [reply lost, gives up] ", w); release(MINE, wfence[w]); phase[w] = DONE }
	:: d_step { MAY_RELEASE && CAN_LOSE && lateOp[w] == L_NONE -> lost++; held[w] = 0;
		printf("w%d release token %d in flight, will re-send\n", w, MINE);
		send_late(w, L_RELEASE, wfence[w]); phase[w] = RELEASING }
	:: d_step { MAY_RELEASE && CAN_LOSE && lateOp[w] == L_NONE -> lost++; held[w] = 0;
		printf("w%d release token %d in flight, gives up\n", w, MINE);
		send_late(w, L_RELEASE, wfence[w]); phase[w] = DONE }

	/* ---- crash at any point: never heard from again (its commands in flight may land) ---- */
	:: d_step { phase[w] != DONE && phase[w] != CRASHED && CAN_CRASH(w) ->
		printf("w%d crashes\n", w); crashes++; phase[w] = CRASHED; crashed[w] = 1; held[w] = 0 }
	od   /* DONE and CRASHED enable nothing: the worker rests here */
}

/* Commands in flight land late, in any order, or never. */
inline land(w) {
	if
	:: d_step { lateAcq[w] != 0 -> printf("late: w%d ", w); acquire(w, lateAcq[w]); lateAcq[w] = 0 }
	:: d_step { lateAcq[w] != 0 -> printf("late: acquire token %d never lands\n", lateAcq[w]); lateAcq[w] = 0 }
	:: d_step { lateOp[w] == L_COMPLETE -> printf("late: "); complete(lateTok[w], lateFence[w]);
		lateOp[w] = L_NONE; lateTok[w] = 0; lateFence[w] = 0 }
	:: d_step { lateOp[w] == L_RELEASE -> printf("late: "); release(lateTok[w], lateFence[w]);
		lateOp[w] = L_NONE; lateTok[w] = 0; lateFence[w] = 0 }
	:: d_step { lateOp[w] != L_NONE -> printf("late: command of token %d never lands\n", lateTok[w]);
		lateOp[w] = L_NONE; lateTok[w] = 0; lateFence[w] = 0 }
	fi
}

active proctype Network() {
end:
	do
	:: land(0)
	:: land(1)
#if N > 2
	:: land(2)
#endif
#if N > 3
	:: land(3)
#endif
	od
}

/* The store clock: a tick ages every lease and expiry, and Redis deletes a key whose PX
   ran out. The workers' monotonic clocks run at the same rate (isLeaseHeld). */
active proctype Clock() {
	byte i;
end:
	do
	:: d_step {
		printf("tick\n");
		if
		:: r_lease > 0 -> r_lease--
		:: else
		fi;
		if
#if defined(NO_RECOVERY) || defined(NO_EXPIRY)
		:: r_state != NONE && r_state != IN_PROGRESS ->
#else
		:: r_state != NONE ->
#endif
			r_ttl--;
			if
			:: r_ttl == 0 ->
				printf("the record expires\n");
				r_state = NONE; r_fence = 0; r_owner = 0; r_lease = 0; r_take = 0; r_body = 0;
				completer = 0; cbody = 0
			:: else
			fi
		:: else
		fi;
		i = 0;
		do
		:: i < N -> if :: held[i] > 0 -> held[i]-- :: else fi; i++
		:: else -> i = 0; break
		od;
		if
		:: g_rem > 0 ->
			g_rem--;
			if
			:: g_rem == 0 -> g_fence = 0; g_tok = 0; g_ip = 0
			:: else
			fi
		:: else
		fi
	}
	od
}

init {
	atomic {
		run Worker(0);
		run Worker(1);
#if N > 2
		run Worker(2);
#endif
#if N > 3
		run Worker(3);
#endif
	}
}

#ifdef LIVENESS
/* P5, checked under weak fairness (pan -a -f): when a live worker (worker 0) is trying to
   acquire a key whose owner crashed, the key is eventually acquired by a live worker, or
   found completed (by a completion the crashed owner sent before it crashed, landing late). */
#define crashedHolder (r_state == IN_PROGRESS && crashed[WORKER(r_owner)])
#define liveTrying (phase[0] == ACQ)
#define acquiredOrDone ((r_state == IN_PROGRESS && !crashed[WORKER(r_owner)]) || r_state == COMPLETED)
ltl taken_over { [] ((crashedHolder && liveTrying) -> <> acquiredOrDone) }
#endif
