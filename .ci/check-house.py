#!/usr/bin/env python3
"""Checks the shape of the house (issue 22): no main class over 250 non-blank lines, the
median main class at most 60, no cycle between packages, and idempotency-core free of
any store or transport technology. Prints what breaks a rule and exits non-zero."""
import os
import re
import statistics
import subprocess
import sys

MAX_LINES = 250
MAX_MEDIAN = 60
# What idempotency-core must never import: stores and transports live in their modules
CORE_FORBIDDEN = ("org.springframework.data.", "io.lettuce.", "org.springframework.web.", "jakarta.servlet.",
                  "org.springframework.kafka.", "org.apache.kafka.", "org.springframework.amqp.", "com.rabbitmq.")

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
files = subprocess.run(["git", "ls-files", "*.java"], cwd=root, capture_output=True, text=True,
                       check=True).stdout.split()
main = [f for f in files if "/src/main/java/" in f]
problems = []

sizes = {}
for path in main:
    with open(os.path.join(root, path), encoding="utf-8") as source:
        sizes[path] = sum(1 for line in source if line.strip())
for path, size in sorted(sizes.items(), key=lambda item: -item[1]):
    if size > MAX_LINES:
        problems.append(f"{path}: {size} non-blank lines (at most {MAX_LINES})")
median = statistics.median(sizes.values())
if median > MAX_MEDIAN:
    problems.append(f"median main class: {median} non-blank lines (at most {MAX_MEDIAN})")

# Package graph of the main code, from imports and the packages of each file
package_of = {}
classes = {}
for path in main:
    text = open(os.path.join(root, path), encoding="utf-8").read()
    match = re.search(r"^package\s+([\w.]+);", text, re.M)
    if match:
        package_of[path] = match.group(1)
        classes.setdefault(match.group(1), set()).add(os.path.basename(path)[:-5])
edges = {}
for path, package in package_of.items():
    text = open(os.path.join(root, path), encoding="utf-8").read()
    for imported in re.findall(r"^import\s+(?:static\s+)?(dev\.idempotency[\w.]*)\s*;", text, re.M):
        parts = imported.split(".")
        # the package is the prefix before the first capitalised part
        target = ".".join(p for p in parts[:next((i for i, p in enumerate(parts) if p[:1].isupper()), len(parts))])
        if target != package and target in classes:
            edges.setdefault(package, set()).add(target)
    if package.startswith("dev.idempotency.") and "/idempotency-core/" in path:
        for imported in re.findall(r"^import\s+(?:static\s+)?([\w.]+)", text, re.M):
            if imported.startswith(CORE_FORBIDDEN):
                problems.append(f"{path}: idempotency-core imports {imported}")

# Tarjan's strongly connected components: any with more than one package is a cycle
index, low, stack, on_stack, cycles, counter = {}, {}, [], set(), [], [0]
def visit(node):
    index[node] = low[node] = counter[0]
    counter[0] += 1
    stack.append(node)
    on_stack.add(node)
    for successor in edges.get(node, ()):
        if successor not in index:
            visit(successor)
            low[node] = min(low[node], low[successor])
        elif successor in on_stack:
            low[node] = min(low[node], index[successor])
    if low[node] == index[node]:
        component = []
        while True:
            member = stack.pop()
            on_stack.discard(member)
            component.append(member)
            if member == node:
                break
        if len(component) > 1:
            cycles.append(sorted(component))
sys.setrecursionlimit(10000)
for package in sorted(classes):
    if package not in index:
        visit(package)
for cycle in cycles:
    problems.append("packages in a cycle: " + ", ".join(cycle))

print(f"{len(sizes)} main classes, largest {max(sizes.values())} non-blank lines, median {median}; "
      f"{len(classes)} packages, {sum(len(v) for v in edges.values())} dependencies between them")
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
