#!/usr/bin/env python3
"""Checks the hints of the sample's AOT build (docs/aot.md): what a native image of the demo needs from the
starter is in the reachability-metadata.json that spring-boot:process-aot wrote. Prints what is missing and exits
non-zero."""
import json
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
path = os.path.join(root, "sample-app/target/spring-aot/main/resources/META-INF/native-image/dev.idempotency/"
                    "sample-app/reachability-metadata.json")
metadata = json.load(open(path, encoding="utf-8"))
types = {entry["type"]: entry for entry in metadata.get("reflection", []) if isinstance(entry.get("type"), str)}
globs = {entry.get("glob") for entry in metadata.get("resources", [])}
problems = []


def methods(type_name):
    return {method["name"] for method in types.get(type_name, {}).get("methods", [])}


# The demo's result, written and read by the codec: its record accessors and constructors
receipt = "dev.idempotency.sample.Receipt"
if not {"eventId", "ledgerEntry", "amountCents"} <= methods(receipt) or \
        not types.get(receipt, {}).get("allDeclaredConstructors"):
    problems.append(f"{receipt}: binding (record accessors, constructors) missing")
# The event the key #event.id navigates: its accessors and public methods
event = "dev.idempotency.sample.PaymentEvent"
if "id" not in methods(event) or not types.get(event, {}).get("allPublicMethods"):
    problems.append(f"{event}: accessors or public methods missing")
# The @Idempotent method the interceptor calls
if "handle" not in methods("dev.idempotency.sample.PaymentHandler"):
    problems.append("dev.idempotency.sample.PaymentHandler.handle: invocation missing")
# The root object of key expressions, and the Redis store's scripts
if not types.get("dev.idempotency.aop.KeyRoot", {}).get("allPublicMethods"):
    problems.append("dev.idempotency.aop.KeyRoot: public methods missing")
if "dev/idempotency/store/redis/*.lua" not in globs:
    problems.append("dev/idempotency/store/redis/*.lua: resources missing")

for problem in problems:
    print(problem)
print(f"{len(types)} types and {len(globs)} resource patterns in {os.path.relpath(path, root)}: "
      + ("hints missing" if problems else "the starter's hints are there"))
sys.exit(1 if problems else 0)
