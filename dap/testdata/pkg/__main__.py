import sys

def greet(who):
    msg = "hello " + who  # LINE: greet
    return msg

print(greet(sys.argv[1] if len(sys.argv) > 1 else "world"), flush=True)
