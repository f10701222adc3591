# Split the caller-thread samples of a collapsed profile into the starter's parts (first match wins).
# usage: cat.py FILE THREAD_REGEX
import sys, collections, re
f, tre = sys.argv[1], re.compile(sys.argv[2])
cats = [
 ('lettuce-evalsha+await', 'LettuceEval.evaluate'),
 ('lettuce-floor', 'LettuceFloor'),
 ('jackson-encode', 'ResultEncoder.encode'),
 ('jackson-decode', 'Replay.decode'),
 ('spel', 'evaluationContext|SpelExpression|ExpressionVariables|MethodBasedEvaluationContext'),
 ('store-args/keys', 'RedisIdempotencyStore|AcquireTransition|FinishTransitions|RecordCommands'),
 ('renewal', 'LeaseRenewer|RenewalSweeper|AttemptStarter'),
 ('inflight', 'InFlightCalls|CallAdmission'),
 ('keys', 'CallRequests|StableKeys|Keys\\.'),
 ('listeners/outcome', 'Listeners|OutcomeReporter|OutcomeRecorder|MethodOutcomes'),
 ('engine-other', 'dev/idempotency/engine'),
 ('aop', 'IdempotentInterceptor|CglibAopProxy|ReflectiveMethodInvocation|AopProxyUtils|IdempotentOperationSource'),
 ('harness', 'dev/idempotency/benchmarks'),
]
c = collections.Counter(); total=0
for line in open(f):
    stack, n = line.rstrip().rsplit(' ', 1); n=int(n)
    if not tre.search(stack.split(';',1)[0]): continue
    total+=n
    for name, pat in cats:
        if re.search(pat, stack):
            c[name]+=n; break
    else: c['other']+=n
print('total', total)
for k,v in c.most_common(): print(f"{v:7d} {100*v/total:5.1f}% {k}")
