print("timbre")
