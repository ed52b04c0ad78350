#!/usr/bin/env python3
"""Inside the VM, the comparison side of the figures: gpiozero 2.x measuring presses the
way a gpiozero program would, with Button callbacks and time.monotonic().

Pin factory: LGPIOFactory (lgpio), the gpiozero factory that talks to a generic Linux
gpiochip character device. gpiozero maps pin names through a Raspberry Pi header table,
so the factory is told it runs on a Pi 3B (revision a02082): "GPIO8" is then line 8 of
the chip. Nothing else is changed. usage: zero.py CHIP_NUMBER START_LINE STOP_LINE LED_LINE OUT.json
Runs until SIGTERM, then writes the press times and the LED toggles it made."""
import json, os, signal, sys, tempfile, threading, time

os.chdir(tempfile.mkdtemp())        # lgpio makes its notification pipe in the working directory
from gpiozero import Button, LED
from gpiozero.pins.lgpio import LGPIOFactory


class GenericChipFactory(LGPIOFactory):
    def _get_revision(self):
        return 0xA02082


chip, start_line, stop_line, led_line, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
factory = GenericChipFactory(chip=chip)
start = Button(start_line, pull_up=True, pin_factory=factory)
stop = Button(stop_line, pull_up=True, pin_factory=factory)
led = LED(led_line, pin_factory=factory)
presses = {"start": [], "stop": []}


def on_start():
    presses["start"].append(time.monotonic())
    led.toggle()                    # press → LED: the line changes on every start press


start.when_pressed = on_start
stop.when_pressed = lambda: presses["stop"].append(time.monotonic())
done = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: done.set())
print("ready", flush=True)
done.wait()
json.dump(presses, open(out, "w"))
