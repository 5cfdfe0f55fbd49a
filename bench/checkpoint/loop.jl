# The checkpointed-loop benchmark row (bench/checkpoint/run): the logistic map iterated n
# times, plainly, under `# zy: checkpoint` (chunks of ⌈√n⌉) and under `# zy: checkpoint
# snapshots=100` (Revolve's binomial schedule); same value and gradient, different tape.

function plain_loop(x, h, n)
    for i in 1:n
        x = x + h * x * (1.0 - x)
    end
    return x
end

function checkpointed_loop(x, h, n)
    # zy: checkpoint
    for i in 1:n
        x = x + h * x * (1.0 - x)
    end
    return x
end

function revolve_loop(x, h, n)
    # zy: checkpoint snapshots=100
    for i in 1:n
        x = x + h * x * (1.0 - x)
    end
    return x
end
